import { spawn } from 'node:child_process';
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isDelivered, newSigningSecret, postWebhook, signWebhook } from '../../../src/core/webhooks/transport.ts';
import { refusedUrl, startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts';
import { ROOT } from '../../helpers/subprocess.ts';

const open = { timeoutMs: 2_000, allowPrivateUrls: true };
const guarded = { timeoutMs: 2_000, allowPrivateUrls: false };
/** Short on purpose: the hang and stall cases wait for it. */
const SHORT = 300;

function signedHeaders(secret: string, body: string, id = 'evt_01J0000000000000000000000') {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, id, timestamp, body),
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('signWebhook and newSigningSecret', () => {
  const body = JSON.stringify({
    id: 'evt_1',
    object: 'event',
    type: 'content.updated',
    data: { caption: 'héllo ✨ "quoted"' },
  });

  it('makes whsec_ + base64 of 32 random bytes, different every time', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
  });

  it('produces the signature the standardwebhooks package computes', () => {
    const secret = newSigningSecret();
    const timestamp = 1_767_225_600;
    expect(signWebhook(secret, 'evt_a', timestamp, body)).toBe(
      new Webhook(secret).sign('evt_a', new Date(timestamp * 1000), body),
    );
    expect(signWebhook(secret, 'evt_a', timestamp, body)).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('verifies with standardwebhooks, and a tampered body, id, timestamp or secret does not', () => {
    const secret = newSigningSecret();
    const headers = signedHeaders(secret, body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));

    expect(() => new Webhook(secret).verify(body.replace('héllo', 'hello'), headers)).toThrow(/signature/i);
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_other' })).toThrow(/signature/i);
    const later = String(Number(headers['webhook-timestamp']) + 1);
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': later })).toThrow(/signature/i);
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow(/signature/i);
  });

  it('keys the HMAC with the decoded secret, not the text after whsec_', () => {
    const secret = newSigningSecret();
    const raw = secret.slice('whsec_'.length);
    // Same key with or without the prefix (as in standardwebhooks) ...
    expect(signWebhook(raw, 'evt_a', 1, 'x')).toBe(signWebhook(secret, 'evt_a', 1, 'x'));
    // ... and a different one when the base64 text itself would be the key.
    expect(signWebhook(`whsec_${Buffer.from(raw).toString('base64')}`, 'evt_a', 1, 'x')).not.toBe(
      signWebhook(secret, 'evt_a', 1, 'x'),
    );
  });

  it('refuses a timestamp that is not whole seconds, which the header could not carry as signed', () => {
    expect(() => signWebhook(newSigningSecret(), 'evt_a', 1_767_225_600.5, body)).toThrow(RangeError);
    expect(() => signWebhook(newSigningSecret(), 'evt_a', Date.now() * 1000 * 1000 * 10, body)).toThrow(RangeError);
  });
});

describe('postWebhook against a local receiver', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());
  afterEach(() => {
    receiver.requests.length = 0;
    receiver.respondWith({ status: 200 });
  });

  it('delivers a signed body the receiver verifies over the raw bytes, with JSON content type and our user agent', async () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({ id: 'evt_2', object: 'event', data: { caption: 'ünïcödé 🚀' } });
    receiver.respondWith({ status: 200, body: 'thanks' });

    const result = await postWebhook(`${receiver.url}/hook?tenant=1`, body, signedHeaders(secret, body), open);

    expect(result).toEqual({ statusCode: 200, responseBody: 'thanks', durationMs: expect.any(Number), error: null });
    expect(isDelivered(result)).toBe(true);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hook?tenant=1');
    expect(request!.body).toBe(body);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(request!.headers['user-agent']).toMatch(/^content-publishing-service/);
    expect(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toEqual(
      JSON.parse(body),
    );
    const tampered = request!.body.replace('🚀', '🛸');
    expect(() => new Webhook(secret).verify(tampered, request!.headers as Record<string, string>)).toThrow(
      /signature/i,
    );
  });

  it('keeps its own content type and user agent over the caller’s', async () => {
    await postWebhook(receiver.url, '{}', { 'Content-Type': 'text/plain', 'User-Agent': 'other' }, open);
    expect(receiver.requests[0]!.headers['content-type']).toBe('application/json');
    expect(receiver.requests[0]!.headers['user-agent']).toMatch(/^content-publishing-service/);
  });

  it('204: delivered with an empty body', async () => {
    receiver.respondWith({ status: 204 });
    const result = await postWebhook(receiver.url, '{}', {}, open);
    expect(result).toMatchObject({ statusCode: 204, responseBody: '', error: null });
    expect(isDelivered(result)).toBe(true);
  });

  it('301: not followed, a failure; the receiver sees one request', async () => {
    receiver.respondWith({ status: 301, location: `${receiver.url}/moved`, body: 'moved' }, '/old');
    receiver.respondWith({ status: 200 }, '/moved');
    const result = await postWebhook(`${receiver.url}/old`, '{}', {}, open);
    expect(result).toMatchObject({ statusCode: 301, responseBody: 'moved', error: null });
    expect(isDelivered(result)).toBe(false);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/old']);
  });

  it.each([
    [404, 'no such hook'],
    [500, '{"error":"boom"}'],
    [503, ''],
  ])('%i: a failure that keeps the status and body', async (status, text) => {
    receiver.respondWith({ status, body: text });
    const result = await postWebhook(receiver.url, '{}', {}, open);
    expect(result).toMatchObject({ statusCode: status, responseBody: text, error: null });
    expect(isDelivered(result)).toBe(false);
  });

  it('reads only the first 8,192 bytes of a 100 KB body', async () => {
    const big = 'abcdefghij'.repeat(10_000);
    receiver.respondWith({ status: 500, body: big });
    const result = await postWebhook(receiver.url, '{}', {}, open);
    expect(result.statusCode).toBe(500);
    expect(Buffer.byteLength(result.responseBody!)).toBe(8_192);
    expect(result.responseBody).toBe(big.slice(0, 8_192));
  });

  it('stops at 8,192 bytes instead of waiting for the rest of the body', async () => {
    // The receiver sends 100 KB and never ends the response: waiting for the end would time out.
    receiver.respondWith({ status: 200, body: 'y'.repeat(100_000), stall: true });
    const result = await postWebhook(receiver.url, '{}', {}, { ...open, timeoutMs: 5_000 });
    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(result.responseBody).toHaveLength(8_192);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('cuts a multi-byte body at a character boundary, never past 8,192 bytes', async () => {
    receiver.respondWith({ status: 400, body: '€'.repeat(10_000) });
    const result = await postWebhook(receiver.url, '{}', {}, open);
    // 8,192 / 3 bytes: 2,730 whole characters; the cut one is dropped, not shown as U+FFFD.
    expect(result.responseBody).toBe('€'.repeat(2_730));
  });

  it('hang: a timeout after the deadline, status 0', async () => {
    receiver.respondWith('hang');
    const result = await postWebhook(receiver.url, '{}', {}, { ...open, timeoutMs: SHORT });
    expect(result).toMatchObject({ statusCode: 0, responseBody: null, error: `timeout after ${SHORT} ms` });
    expect(result.durationMs).toBeGreaterThanOrEqual(SHORT - 5);
    expect(result.durationMs).toBeLessThan(SHORT + 1_000);
    expect(receiver.requests).toHaveLength(1);
  });

  it('a status whose body is not finished by the deadline is a timeout, not a status', async () => {
    receiver.respondWith({ status: 200, body: 'partial', stall: true });
    const result = await postWebhook(receiver.url, '{}', {}, { ...open, timeoutMs: SHORT });
    expect(result).toMatchObject({ statusCode: 0, responseBody: null, error: `timeout after ${SHORT} ms` });
    expect(isDelivered(result)).toBe(false);
  });

  it('reset: connection reset, status 0', async () => {
    receiver.respondWith('reset');
    const result = await postWebhook(receiver.url, '{}', {}, open);
    expect(result).toMatchObject({ statusCode: 0, responseBody: null, error: 'connection reset' });
  });

  it('refused: connection refused, status 0', async () => {
    const result = await postWebhook(await refusedUrl(), '{}', {}, open);
    expect(result).toMatchObject({ statusCode: 0, responseBody: null, error: 'connection refused' });
    expect(result.durationMs).toBeLessThan(1_000);
  });

  it('a name that does not resolve: status 0, no throw', async () => {
    vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, _options: unknown, callback: (err: Error) => void) =>
      callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
      )) as unknown as typeof dns.lookup);
    const result = await postWebhook('http://nowhere.invalid/hook', '{}', {}, guarded);
    expect(result).toMatchObject({ statusCode: 0, responseBody: null, error: 'host nowhere.invalid does not resolve' });
  });

  it('an unusable URL: status 0, no throw', async () => {
    expect(await postWebhook('not a url', '{}', {}, open)).toMatchObject({
      statusCode: 0,
      error: expect.stringMatching(/absolute/),
    });
    expect(await postWebhook('ftp://127.0.0.1/', '{}', {}, open)).toMatchObject({
      statusCode: 0,
      error: expect.stringMatching(/http or https/),
    });
  });

  it('a header Node refuses to send: status 0, no throw, nothing sent', async () => {
    const result = await postWebhook(receiver.url, '{}', { 'x-injected': 'a\r\nb' }, open);
    expect(result).toMatchObject({
      statusCode: 0,
      responseBody: null,
      error: expect.stringMatching(/invalid character in header/i),
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it('durationMs is a whole number of milliseconds that covers the exchange', async () => {
    receiver.respondWith({ status: 200, body: 'ok' });
    const before = performance.now();
    const result = await postWebhook(receiver.url, '{}', {}, open);
    const outside = performance.now() - before;
    expect(Number.isInteger(result.durationMs)).toBe(true);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.durationMs).toBeLessThanOrEqual(Math.ceil(outside));
  });

  it('keeps the connection alive between posts to the same host', async () => {
    await postWebhook(receiver.url, '{}', {}, open);
    await postWebhook(receiver.url, '{}', {}, open);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.remotePort).toBe(receiver.requests[0]!.remotePort);
  });
});

describe('postWebhook: the guard on the address actually dialled', () => {
  let v4: Receiver;
  let v6: Receiver;
  let port: number;
  let port6: number;
  beforeAll(async () => {
    v4 = await startReceiver();
    v6 = await startReceiver({ host: '::1' });
    port = Number(new URL(v4.url).port);
    port6 = Number(new URL(v6.url).port);
  });
  afterAll(async () => {
    await v4.close();
    await v6.close();
  });
  afterEach(() => {
    v4.requests.length = 0;
    v6.requests.length = 0;
  });

  // Each of these reaches a real loopback receiver when the guard is lifted, so a guard that let
  // them through would deliver, and the test would fail.
  const loopbackRows: Array<[url: () => string, receiver: () => Receiver, range: string]> = [
    [() => `http://127.0.0.1:${port}/`, () => v4, 'blocked address 127.0.0.1 (loopback)'],
    [() => `http://[::1]:${port6}/`, () => v6, 'blocked address ::1 (loopback)'],
    [() => `http://[::ffff:127.0.0.1]:${port}/`, () => v4, 'blocked address ::ffff:7f00:1 (loopback)'],
    [() => `http://[::ffff:7f00:1]:${port}/`, () => v4, 'blocked address ::ffff:7f00:1 (loopback)'],
    [() => `http://2130706433:${port}/`, () => v4, 'blocked address 127.0.0.1 (loopback)'],
    [() => `http://0.0.0.0:${port}/`, () => v4, 'blocked address 0.0.0.0 (unspecified)'],
    [() => `http://[::]:${port6}/`, () => v6, 'blocked address :: (unspecified)'],
    [() => `http://localhost:${port}/`, () => v4, 'blocked address 127.0.0.1 (loopback)'],
  ];

  it.each(loopbackRows.map(([url, receiver, error], i) => [i, url, receiver, error] as const))(
    'loopback row %i: refused when guarded, delivered when allowed',
    async (_i, url, receiver, error) => {
      const blocked = await postWebhook(url(), '{}', {}, guarded);
      expect(blocked).toMatchObject({ statusCode: 0, responseBody: null, error });
      expect(receiver().requests).toHaveLength(0);

      const allowed = await postWebhook(url(), '{}', {}, open);
      expect(allowed).toMatchObject({ statusCode: 200, error: null });
      expect(receiver().requests).toHaveLength(1);
    },
  );

  it('checks the address DNS gives at delivery time, not the one it gave at create time', async () => {
    // A name that passed checkWebhookUrl and now resolves to loopback (DNS rebinding).
    const lookup = vi
      .spyOn(dns, 'lookup')
      .mockImplementation(((hostname: string, _options: unknown, callback: (err: null, a: LookupAddress[]) => void) =>
        callback(
          null,
          hostname === 'rebound.example.com' ? [{ address: '127.0.0.1', family: 4 }] : [],
        )) as unknown as typeof dns.lookup);
    const result = await postWebhook(`http://rebound.example.com:${port}/`, '{}', {}, guarded);
    expect(result).toMatchObject({ statusCode: 0, error: 'blocked address 127.0.0.1 (loopback)' });
    expect(lookup).toHaveBeenCalled();
    expect(v4.requests).toHaveLength(0);
  });

  describe('addresses off loopback (no packet leaves: the dial itself is intercepted)', () => {
    /** Replaces the agent's dial: records the address and fails the socket without connecting. */
    function interceptDials() {
      const dialled: string[] = [];
      vi.spyOn(http.Agent.prototype, 'createConnection').mockImplementation(((
        options: net.NetConnectOpts & { host?: string },
      ) => {
        dialled.push(String(options.host));
        const socket = new net.Socket();
        process.nextTick(() =>
          socket.destroy(Object.assign(new Error('dial intercepted by the test'), { code: 'ETESTDIAL' })),
        );
        return socket;
      }) as unknown as typeof http.Agent.prototype.createConnection);
      return dialled;
    }

    it.each([
      ['http://169.254.169.254/latest/meta-data/', 'blocked address 169.254.169.254 (link-local)'],
      ['http://10.0.0.1/', 'blocked address 10.0.0.1 (private)'],
      ['http://172.16.0.1/', 'blocked address 172.16.0.1 (private)'],
      ['http://172.31.255.255/', 'blocked address 172.31.255.255 (private)'],
      ['http://192.168.1.1/', 'blocked address 192.168.1.1 (private)'],
      ['http://100.64.0.1/', 'blocked address 100.64.0.1 (carrier-grade NAT)'],
      ['http://[fc00::1]/', 'blocked address fc00::1 (unique-local)'],
      ['http://[fd12::1]/', 'blocked address fd12::1 (unique-local)'],
      ['http://[fe80::1]/', 'blocked address fe80::1 (link-local)'],
      ['http://[::ffff:a9fe:a9fe]/', 'blocked address ::ffff:a9fe:a9fe (link-local)'],
    ])('%s is refused before any dial', async (url, error) => {
      const dialled = interceptDials();
      expect(await postWebhook(url, '{}', {}, guarded)).toMatchObject({ statusCode: 0, responseBody: null, error });
      expect(dialled).toEqual([]);
    });

    it('172.32.0.1 is public: it is dialled (and the intercepted dial fails without throwing)', async () => {
      const dialled = interceptDials();
      const result = await postWebhook('http://172.32.0.1/', '{}', {}, guarded);
      expect(dialled).toEqual(['172.32.0.1']);
      expect(result).toMatchObject({
        statusCode: 0,
        responseBody: null,
        error: expect.stringMatching(/dial intercepted/),
      });
    });
  });
});

describe('postWebhook: idle keep-alive sockets do not keep the process alive', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('a process exits right after its last post although its connection is pooled', async () => {
    // The receiver (like most servers) keeps idle connections 5 s; a pooled socket that held the
    // process open would keep the child alive that long.
    const script = `
      import { postWebhook } from './src/core/webhooks/transport.ts';
      const options = { timeoutMs: 2000, allowPrivateUrls: true };
      const results = [await postWebhook(process.argv[1], '{}', {}, options), await postWebhook(process.argv[1], '{}', {}, options)];
      console.log(JSON.stringify(results.map((r) => r.statusCode)));
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, receiver.url], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let printedAt = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      printedAt = performance.now();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(killer);
    const lingered = performance.now() - printedAt;

    expect({ code, stderr: stderr.replace(/npm warn.*\n/g, '') }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual([200, 200]);
    // Both posts went over one connection: the socket really was pooled.
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.remotePort).toBe(receiver.requests[0]!.remotePort);
    expect(lingered).toBeLessThan(2_000);
  });
});
