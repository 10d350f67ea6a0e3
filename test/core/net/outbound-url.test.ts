import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BlockedAddressError,
  blockedRange,
  checkWebhookUrl,
  guardedLookup,
} from '../../../src/core/net/outbound-url.ts';

const guarded = { allowPrivateUrls: false };
const open = { allowPrivateUrls: true };

/** Every address literal the SSRF guard refuses, and the class its reason must name. */
const REFUSED_LITERALS: Array<[url: string, range: RegExp]> = [
  ['http://127.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://127.1.2.3:8080/hook', /loopback/],
  ['http://[::1]/', /::1 is a loopback address/],
  ['http://[::ffff:127.0.0.1]/', /loopback/],
  ['http://[::ffff:7f00:1]/', /loopback/],
  // WHATWG URL turns these into 127.0.0.1 before anything sees them.
  ['http://2130706433/', /127\.0\.0\.1 is a loopback address/],
  ['http://0x7f.1/', /loopback/],
  ['http://0.0.0.0/', /unspecified/],
  ['http://[::]/', /unspecified/],
  ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
  ['http://[::ffff:169.254.169.254]/', /link-local/],
  ['http://[fe80::1]/', /link-local/],
  ['http://10.0.0.1/', /10\.0\.0\.1 is a private address/],
  ['http://172.16.0.1/', /private/],
  ['http://172.31.255.255/', /private/],
  ['http://192.168.1.1/', /private/],
  ['http://[::ffff:10.0.0.1]/', /private/],
  ['http://100.64.0.1/', /carrier-grade NAT/],
  ['http://100.127.255.254/', /carrier-grade NAT/],
  ['http://[fc00::1]/', /unique-local/],
  ['http://[fd12::1]/', /unique-local/],
  ['http://224.0.0.1/', /multicast/],
  ['http://[ff02::1]/', /multicast/],
  ['http://255.255.255.255/', /broadcast/],
  ['http://240.0.0.1/', /reserved/],
  ['http://192.0.2.10/', /reserved/],
  ['http://[2001:db8::1]/', /reserved/],
  // ::/96 (IPv4-compatible) is unnamed in ipaddr.js; the guard names it itself.
  ['http://[::7f00:1]/', /IPv4-compatible/],
  // NAT64 carries an IPv4 address: judged by it.
  ['http://[64:ff9b::7f00:1]/', /loopback/],
];

const ALLOWED_LITERALS = [
  'http://172.32.0.1/',
  'http://172.15.255.255/',
  'http://100.128.0.1/',
  'http://93.184.215.14/hooks?x=1',
  'https://8.8.8.8:8443/',
  'http://[2606:4700:4700::1111]/',
  'http://[::ffff:8.8.8.8]/',
  'http://[64:ff9b::808:808]/',
];

const addresses = (...list: string[]): LookupAddress[] =>
  list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

/** Replaces `dns.promises.lookup` (what checkWebhookUrl resolves with) so no query leaves loopback. */
function mockPromisesLookup(answers: Record<string, LookupAddress[]>) {
  return vi.spyOn(dns.promises, 'lookup').mockImplementation((async (hostname: string) => {
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  }) as unknown as typeof dns.promises.lookup);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('checkWebhookUrl: IP literals', () => {
  it.each(REFUSED_LITERALS)('refuses %s', async (url, range) => {
    const reason = await checkWebhookUrl(url, guarded);
    expect(reason).toMatch(range);
    expect(reason).toMatch(/webhook URLs must reach a public address/);
  });

  it.each(REFUSED_LITERALS)('lets %s through with allowPrivateUrls', async (url) => {
    expect(await checkWebhookUrl(url, open)).toBeNull();
  });

  it.each(ALLOWED_LITERALS)('allows the public address %s', async (url) => {
    expect(await checkWebhookUrl(url, guarded)).toBeNull();
  });
});

describe('checkWebhookUrl: host names', () => {
  it('refuses localhost, which resolves to loopback (real resolver, /etc/hosts)', async () => {
    expect(await checkWebhookUrl('http://localhost:3000/hook', guarded)).toMatch(
      /^url host localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
  });

  it('resolves with all addresses and allows a name whose addresses are all public', async () => {
    const lookup = mockPromisesLookup({
      'hooks.example.com': addresses('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'),
    });
    expect(await checkWebhookUrl('https://hooks.example.com/in', guarded)).toBeNull();
    expect(lookup).toHaveBeenCalledWith('hooks.example.com', expect.objectContaining({ all: true }));
  });

  it('refuses a name when any one of its addresses is refused', async () => {
    mockPromisesLookup({ 'mixed.example.com': addresses('93.184.215.14', '10.1.2.3') });
    expect(await checkWebhookUrl('https://mixed.example.com/', guarded)).toBe(
      'url host mixed.example.com resolves to 10.1.2.3, a private address; webhook URLs must reach a public address',
    );
  });

  it('refuses a name that resolves to the cloud metadata address', async () => {
    mockPromisesLookup({ 'metadata.example.com': addresses('169.254.169.254') });
    expect(await checkWebhookUrl('http://metadata.example.com/', guarded)).toMatch(
      /169\.254\.169\.254, a link-local address/,
    );
  });

  it('refuses a name that does not resolve', async () => {
    mockPromisesLookup({});
    expect(await checkWebhookUrl('https://nowhere.invalid/hook', guarded)).toBe(
      'url host nowhere.invalid does not resolve',
    );
  });

  it('resolves nothing with allowPrivateUrls', async () => {
    const lookup = mockPromisesLookup({});
    expect(await checkWebhookUrl('https://nowhere.invalid/hook', open)).toBeNull();
    expect(await checkWebhookUrl('http://localhost:3000/', open)).toBeNull();
    expect(lookup).not.toHaveBeenCalled();
  });
});

describe('checkWebhookUrl: shape, with or without allowPrivateUrls', () => {
  const cases: Array<[url: string, reason: RegExp]> = [
    ['not a url', /absolute http or https URL/],
    ['/relative/path', /absolute http or https URL/],
    ['', /absolute http or https URL/],
    ['ftp://93.184.215.14/', /must use http or https, not ftp/],
    ['file:///etc/passwd', /must use http or https, not file/],
    ['javascript:alert(1)', /must use http or https, not javascript/],
    ['ws://93.184.215.14/', /must use http or https, not ws/],
    ['https://user:secret@93.184.215.14/', /must not contain a user name or password/],
    ['https://user@93.184.215.14/', /must not contain a user name or password/],
  ];
  it.each(cases)('refuses %j', async (url, reason) => {
    expect(await checkWebhookUrl(url, guarded)).toMatch(reason);
    expect(await checkWebhookUrl(url, open)).toMatch(reason);
  });

  it('accepts http and https, any port and path', async () => {
    expect(await checkWebhookUrl('http://93.184.215.14:8080/a/b?c=d#e', guarded)).toBeNull();
    expect(await checkWebhookUrl('HTTPS://93.184.215.14/', guarded)).toBeNull();
  });
});

describe('blockedRange', () => {
  it('names the range, or null for public unicast', () => {
    expect(blockedRange('127.0.0.1')).toBe('loopback');
    expect(blockedRange('::ffff:7f00:1')).toBe('loopback');
    expect(blockedRange('100.64.0.1')).toBe('carrier-grade NAT');
    expect(blockedRange('2002:7f00:1::')).toBe('special-purpose (6to4)');
    expect(blockedRange('8.8.8.8')).toBeNull();
  });

  it('refuses anything that is not an IP literal instead of guessing', () => {
    expect(blockedRange('localhost')).toBe('not an IP address');
    expect(blockedRange('[::1]')).toBe('not an IP address');
    expect(blockedRange('2130706433')).toBe('not an IP address');
  });
});

describe('guardedLookup (the lookup the transport dials with)', () => {
  type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
  function mockLookup(answers: Record<string, LookupAddress[]>) {
    return vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, _options: unknown, callback: Callback) => {
      const found = answers[hostname];
      if (!found) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      else callback(null, found);
    }) as unknown as typeof dns.lookup);
  }
  const run = (hostname: string, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((resolve) =>
      guardedLookup(hostname, { all }, (err, address, family) => resolve({ err, address, family })),
    );

  it('answers like dns.lookup for public addresses, with and without `all`', async () => {
    mockLookup({ 'hooks.example.com': addresses('93.184.215.14', '2606:4700::1') });
    expect(await run('hooks.example.com', true)).toEqual({
      err: null,
      address: addresses('93.184.215.14', '2606:4700::1'),
      family: undefined,
    });
    expect(await run('hooks.example.com', false)).toEqual({ err: null, address: '93.184.215.14', family: 4 });
  });

  it('refuses when any address is blocked, even if the first one is public', async () => {
    mockLookup({ 'rebind.example.com': addresses('93.184.215.14', '127.0.0.1') });
    const { err } = await run('rebind.example.com', true);
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err?.message).toBe('blocked address 127.0.0.1 (loopback)');
  });

  it('passes a resolver failure through', async () => {
    mockLookup({});
    expect((await run('nowhere.invalid', true)).err?.code).toBe('ENOTFOUND');
  });
});
