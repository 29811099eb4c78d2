// Where a webhook may point: in production an `https` URL whose host resolves only to public addresses
// (no loopback, private, shared, link-local, multicast, reserved or cloud-metadata address). Checked when
// an endpoint is registered, and again at every connection (`guardedLookup`), so a name that later
// resolves elsewhere (DNS rebinding) is refused too. `allowLocal` (the devnet, or an explicit setting)
// also admits `http` and loopback addresses, for receivers on 127.0.0.1.
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ApiError } from '../errors.ts';

export interface TargetPolicy {
  /** http:// and loopback receivers allowed (devnet, tests). */
  allowLocal: boolean;
}

/** A resolver: every address of a host name (tests inject one; the default asks the system). */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses.map((a) => a.address)),
    ),
  );

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // this network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier NAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, and the cloud metadata service 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 of IPv4 addresses
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local, and fd00:ec2::254 (a cloud metadata service)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d or ::ffff:hhhh:hhhh), if any. */
function mappedV4(address: string): string | undefined {
  const m = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return undefined;
  if (m[1]) return m[1];
  const hi = parseInt(m[2] as string, 16);
  const lo = parseInt(m[3] as string, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Whether a webhook may connect to an address under the policy. */
export function addressAllowed(address: string, policy: TargetPolicy): boolean {
  const v4 = mappedV4(address);
  const ip = v4 ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (policy.allowLocal && LOOPBACK.check(ip, family)) return true;
  return isIP(ip) !== 0 && !BLOCKED.check(ip, family);
}

const refuse = (detail: string) =>
  new ApiError('invalid_parameter', detail, {
    invalid_parameters: [{ name: 'url', reason: 'format', detail }],
  });

/**
 * The URL of an endpoint being registered, or invalid_parameter: https (http only where local targets
 * are allowed), no credentials, and a host whose every address is allowed.
 */
export async function checkWebhookUrl(
  raw: string,
  policy: TargetPolicy,
  resolve: Resolve = systemResolve,
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowLocal && url.protocol === 'http:'))
    throw refuse(policy.allowLocal ? 'url must be http or https' : 'url must be https');
  if (url.username || url.password) throw refuse('url must not carry credentials');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    throw refuse(`url's host ${host} does not resolve`);
  }
  if (addresses.length === 0 || !addresses.every((a) => addressAllowed(a, policy)))
    throw refuse(`url's host ${host} resolves to an address webhooks may not reach`);
  return url;
}

/**
 * A `lookup` for http(s).request that refuses, at connect time, an address the policy does not allow
 * (the host may resolve differently than when the endpoint was registered).
 */
export function guardedLookup(policy: TargetPolicy, resolve: Resolve = systemResolve): LookupFunction {
  return ((host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(host).then(
      (addresses) => {
        const bad = addresses.find((a) => !addressAllowed(a, policy));
        if (bad !== undefined || addresses.length === 0) {
          const err = Object.assign(new Error(`webhook target ${host} resolves to a refused address`), {
            code: 'EBLOCKED',
          });
          return callback(err);
        }
        const list = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options?.all) callback(null, list);
        else callback(null, list[0]?.address, list[0]?.family);
      },
      (err: unknown) => callback(err),
    );
  }) as unknown as LookupFunction;
}
