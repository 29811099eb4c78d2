// npm run image:check: runs the image that scripts/image.sh wrote, against PostgreSQL and Redis on
// 127.0.0.1 (started here, stopped at the end). `podman load` must take the archive. The container is
// then run from the archive's own layers and config, as podman would run it, in a chroot as the image's
// user: podman's runtime cannot start containers on this kind of machine (crun's setrlimit is refused in
// the VM). Checked: the gateway comes up (its embedded devnet, as no RPC URL is given), /v1/health
// answers, the process runs as uid 10001, a key made with the image's own CLI reads /v1/config, and the
// image's HEALTHCHECK command passes. Exit 0 only when all of that holds.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, freePortRange } from '../test/support/net.ts';
import { startPostgresCluster } from '../test/support/postgres.ts';
import { startRedis } from '../test/support/redis.ts';

const run = promisify(execFile);
const version = JSON.parse(readFileSync('package.json', 'utf8')).version as string;
const archive = `dist/launchpad-gateway-${version}.tar`;

interface ImageConfig {
  User: string;
  Env: string[];
  Entrypoint: string[];
  Cmd: string[];
  WorkingDir: string;
  Healthcheck?: { Test: string[] };
}

const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'launchpad-image-check-'));
const rootfs = join(dir, 'rootfs');
const mounts: string[] = [];
const pg = await startPostgresCluster();
const redis = await startRedis();
let gateway: ChildProcess | undefined;
let failed = false;
try {
  console.log(`image:check ${archive} (${Math.round(statSync(archive).size / 2 ** 20)} MiB)`);
  await run('podman', ['--storage-driver', 'vfs', 'load', '-q', '-i', archive]);
  console.log('load        podman load takes the archive');

  // The archive's layers, in order, make the root file system; its config says how to run it.
  const layout = join(dir, 'archive');
  mkdirSync(layout);
  mkdirSync(rootfs);
  await run('tar', ['-xf', archive, '-C', layout]);
  const [manifest] = JSON.parse(readFileSync(join(layout, 'manifest.json'), 'utf8')) as {
    Config: string;
    Layers: string[];
  }[];
  if (!manifest) throw new Error('the archive has no manifest');
  for (const layer of manifest.Layers) await run('tar', ['-xf', join(layout, layer), '-C', rootfs]);
  const config = (JSON.parse(readFileSync(join(layout, manifest.Config), 'utf8')) as { config: ImageConfig })
    .config;
  for (const [target, args] of [
    ['proc', ['-t', 'proc', 'proc']],
    ['dev', ['--rbind', '/dev']],
  ] as const) {
    await run('mount', [...args, join(rootfs, target)]);
    mounts.unshift(join(rootfs, target));
  }

  const port = await freePort();
  const env = [
    ...config.Env,
    `PORT=${port}`,
    `DATABASE_URL=${pg.url}`,
    `REDIS_URL=${redis.url}`,
    `DEVNET_PORT=${await freePortRange(4)}`,
    'HOME=/data',
  ];
  /** A command in the image as its user, with its environment and working dir. */
  const inImage = (command: string[]) => [
    `--userspec=${config.User}`,
    rootfs,
    '/usr/bin/env',
    '-i',
    ...env,
    '/bin/sh',
    '-c',
    `cd ${config.WorkingDir} && exec "$@"`,
    'sh',
    ...command,
  ];
  gateway = spawn('chroot', inImage([...config.Entrypoint, ...config.Cmd]), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  gateway.stdout?.on('data', (d) => (said = (said + d).slice(-4000)));
  gateway.stderr?.on('data', (d) => (said = (said + d).slice(-4000)));

  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  let health: Response | undefined;
  while (Date.now() < deadline && gateway.exitCode === null) {
    health = await fetch(`${origin}/v1/health`).catch(() => undefined);
    if (health?.status === 200) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (health?.status !== 200) throw new Error(`/v1/health did not answer 200 in 180 s: ${said}`);
  const body = (await health.json()) as { data: { status: string } };
  console.log(
    `health      ${health.status} ${body.data.status} after ${Math.round((Date.now() - started) / 1000)} s`,
  );

  // Every exec keeps the pid: the chroot's process is the gateway's node.
  const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${gateway.pid}/status`, 'utf8'))?.[1];
  if (uid !== '10001') throw new Error(`the gateway runs as uid ${uid}, not 10001`);
  console.log(
    `user        uid ${uid} (${config.User}), entrypoint ${config.Entrypoint.join(' ')} ${config.Cmd.join(' ')}`,
  );

  const made = await run(
    'chroot',
    inImage(['launchpad', 'keys', 'create', '--plan', 'developer', '--scopes', '*', '--json']),
  );
  const { key } = JSON.parse(made.stdout) as { key: string };
  const answer = await fetch(`${origin}/v1/config?chain_id=8453`, { headers: { 'x-api-key': key } });
  const configBody = (await answer.json()) as { data?: { chain?: { name: string }; suites?: unknown[] } };
  if (answer.status !== 200 || !configBody.data?.suites?.length)
    throw new Error(`/v1/config answered ${answer.status}: ${JSON.stringify(configBody).slice(0, 300)}`);
  console.log(
    `config      200 with a key made by the image's CLI: ${configBody.data.chain?.name}, ${configBody.data.suites.length} suites`,
  );

  const test = config.Healthcheck?.Test ?? [];
  if (test[0] !== 'CMD') throw new Error(`the image has no HEALTHCHECK command (${JSON.stringify(test)})`);
  await run('chroot', inImage(test.slice(1)));
  console.log(`healthcheck ${test.slice(1).join(' ')} passes`);
  console.log(`image:check passed in ${Math.round((Date.now() - started) / 1000)} s`);
} catch (err) {
  failed = true;
  console.error(`image:check FAILED: ${(err as Error).message}`);
} finally {
  if (gateway && gateway.exitCode === null) {
    const exited = once(gateway, 'exit');
    gateway.kill('SIGTERM'); // it stops its devnet with it
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    gateway.kill('SIGKILL');
  }
  for (const m of mounts) await run('umount', ['-R', '-l', m]).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
  await redis.stop();
  await pg.stop();
}
process.exit(failed ? 1 : 0);
