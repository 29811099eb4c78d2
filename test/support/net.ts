import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that is free right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === 'object' && address ? address.port : 0;
}

async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The first of `count` consecutive TCP ports on 127.0.0.1 that are all free right now, in 20000–29999:
 * below Linux's ephemeral range, so a readiness probe polling a port nobody listens on yet can never be
 * given that same port as its own source (a TCP self-connect, which then holds the port in TIME_WAIT).
 */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 10_000);
    let free = true;
    for (let i = 0; i < count && free; i++) free = await isFree(base + i);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports`);
}
