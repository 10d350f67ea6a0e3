/**
 * The outbound-URL guard (against SSRF): which addresses the service may reach when a URL comes from
 * outside. It guards webhooks (checked on the URL at create/update time and again on the address
 * actually dialled at delivery time), media downloads by URL and OAuth client metadata documents
 * (media/download.ts), so it lives apart from any of them.
 *
 * Address classification comes from `ipaddr.js` (2.x, typed, the library Express's proxy-addr is
 * built on) rather than `request-filtering-agent`: the agent only guards a socket and answers with
 * one yes/no, while the service also needs the same classification, with a reason a user can read,
 * at create/update time where nothing is dialled. One classifier serves both checks.
 *
 * The policy is deny by default: an address is allowed only when ipaddr.js calls it plain
 * `unicast`; every special-purpose range it knows (loopback, private, link-local, CGNAT,
 * unique-local, multicast, unspecified, broadcast, reserved, documentation, benchmarking, 6to4,
 * Teredo, ...) is refused. IPv6 forms that carry an IPv4 address (`::ffff:a.b.c.d`, the NAT64 prefix
 * `64:ff9b::/96`) are judged by the IPv4 address they carry, so `::ffff:127.0.0.1` is loopback and a
 * NAT64 gateway's `64:ff9b::808:808` is as public as 8.8.8.8.
 */
import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Human names of the ipaddr.js ranges, used in reasons and log lines. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
  ipv4Compatible: 'deprecated IPv4-compatible',
};

const NAT64 = ipaddr.IPv6.parse('64:ff9b::');
const IPV4_COMPATIBLE = ipaddr.IPv6.parse('::');

/**
 * The refused range `address` (an IP literal without brackets) falls in, as a human name
 * (`loopback`, `private`, ...), or null when it is a public unicast address. Anything that is not
 * an IP literal is refused as `not an IP address`, so a caller can never be let through by a typo.
 */
export function blockedRange(address: string): string | null {
  if (net.isIP(address) === 0) return 'not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.match(NAT64, 96)) ip = ipaddr.IPv4.parse(embeddedIPv4(v6));
  }
  const range = ip.range();
  if (range === 'unicast') {
    // ipaddr.js has no name for ::/96 (IPv4-compatible, deprecated by RFC 4291); `::7f00:1` would
    // otherwise pass as unicast. ::1 and :: are matched above as loopback and unspecified.
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).match(IPV4_COMPATIBLE, 96)) return RANGE_NAMES.ipv4Compatible!;
    return null;
  }
  return RANGE_NAMES[range] ?? `special-purpose (${range})`;
}

function embeddedIPv4(ip: ipaddr.IPv6): string {
  const parts = ip.parts;
  return [parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff].join('.');
}

/** The host of a parsed URL, IPv6 brackets removed (`new URL('http://[::1]/').hostname` is `[::1]`). */
export function hostOf(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Refused by the guard; `code` lets the transport tell it from a network error. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(
    readonly address: string,
    readonly range: string,
  ) {
    super(`blocked address ${address} (${range})`);
    this.name = 'BlockedAddressError';
  }
}

/**
 * The shape rules that hold even with `allowPrivateUrls`: an absolute http(s) URL with a host and
 * without credentials (a `user:pass@` part would be sent as a header to whoever is at the other end,
 * and is never needed: a webhook's signature authenticates the sender). Returns the parsed URL or a reason.
 */
export function parseOutboundUrl(raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `url must use http or https, not ${url.protocol.replace(/:$/, '')}`;
  }
  if (url.username !== '' || url.password !== '') return 'url must not contain a user name or password';
  if (hostOf(url) === '') return 'url must name a host';
  return url;
}

const PUBLIC_ONLY = 'webhook URLs must reach a public address';

/** `a loopback`, `an unspecified`, `a unique-local`. */
const withArticle = (range: string): string => `${/^([aeio]|u(?!ni))/i.test(range) ? 'an' : 'a'} ${range}`;

/**
 * Why `url` may not be a webhook target, or null. With `allowPrivateUrls` only the shape rules
 * apply (nothing is resolved). Otherwise an IP literal is classified directly and a host name is
 * resolved (`dns.promises.lookup`, all addresses) and refused if any address is refused: a name
 * that resolves to a public and a private address may be dialled on either.
 */
export async function checkWebhookUrl(url: string, options: { allowPrivateUrls: boolean }): Promise<string | null> {
  const parsed = parseOutboundUrl(url);
  if (typeof parsed === 'string') return parsed;
  if (options.allowPrivateUrls) return null;

  const host = hostOf(parsed);
  if (net.isIP(host) !== 0) {
    const range = blockedRange(host);
    return range === null ? null : `url host ${host} is ${withArticle(range)} address; ${PUBLIC_ONLY}`;
  }

  let addresses: LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    return `url host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `url host ${host} does not resolve`;
  for (const { address } of addresses) {
    const range = blockedRange(address);
    if (range !== null) return `url host ${host} resolves to ${address}, ${withArticle(range)} address; ${PUBLIC_ONLY}`;
  }
  return null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/http that resolves like the default one and refuses the connection when any
 * address is blocked, so the address the socket dials has always been through the guard (DNS can
 * answer differently at delivery time than it did at create time). Node skips `lookup` for IP
 * literals: the transport checks those itself.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0) {
      return callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }),
        [],
      );
    }
    for (const { address } of addresses) {
      const range = blockedRange(address);
      if (range !== null) return callback(new BlockedAddressError(address, range), []);
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses as [LookupAddress];
    return callback(null, first.address, first.family);
  });
}
