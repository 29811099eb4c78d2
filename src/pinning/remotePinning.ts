// Remote pinning over the IPFS Pinning Service API (https://ipfs.github.io/pinning-services-api-spec/):
// the gateway asks the operator's service to pin a CID, gives its own node as the origin, and waits until
// the service reports it pinned, so that content is held elsewhere before a plan that names it is
// returned. The service fetches the bytes over IPFS. The token goes only in the Authorization header.
import { ApiError } from '../errors.ts';

export interface RemotePinning {
  url: string;
  token: string;
  /** How long to wait for `pinned`. */
  timeoutMs: number;
}

interface PinStatus {
  requestid: string;
  status: 'queued' | 'pinning' | 'pinned' | 'failed';
  delegates?: string[];
}

const unavailable = () =>
  new ApiError('temporarily_unavailable', 'The pinning service cannot be reached', {
    headers: { 'retry-after': '5' },
  });

async function call(remote: RemotePinning, path: string, init: RequestInit, deadline: number) {
  let response: Response;
  try {
    response = await fetch(`${remote.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${remote.token}`, 'content-type': 'application/json' },
      signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
    });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw timedOut(remote);
    throw unavailable();
  }
  if (response.status === 503) throw unavailable();
  if (!response.ok) {
    throw new ApiError('upstream_error', `The pinning service answered ${response.status}`);
  }
  return (await response.json()) as PinStatus;
}

const timedOut = (remote: RemotePinning) =>
  new ApiError('upstream_timeout', `The pinning service did not pin within ${remote.timeoutMs} ms`);

/** Pins `cid` on the remote service with `origins` as providers; resolves once it is pinned there. */
export async function pinRemotely(
  remote: RemotePinning,
  input: { cid: string; name: string; origins: string[]; dial?: (delegates: string[]) => void },
): Promise<void> {
  const deadline = Date.now() + remote.timeoutMs;
  const body = JSON.stringify({ cid: input.cid, name: input.name, origins: input.origins });
  let status = await call(remote, '/pins', { method: 'POST', body }, deadline);
  // The service's own nodes: dialing them lets it fetch even when it cannot dial the origins.
  if (status.delegates?.length) input.dial?.(status.delegates);
  for (let wait = 100; status.status !== 'pinned'; wait = Math.min(wait * 2, 2000)) {
    if (status.status === 'failed') throw new ApiError('upstream_error', 'The pinning service failed to pin');
    if (Date.now() + wait >= deadline) throw timedOut(remote);
    await new Promise((r) => setTimeout(r, wait));
    status = await call(remote, `/pins/${encodeURIComponent(status.requestid)}`, { method: 'GET' }, deadline);
  }
}
