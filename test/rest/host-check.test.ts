import type { IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.ts';
import { Browser } from '../helpers/form-browser.ts';
import { useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * A request to the test server naming `host` in its Host header, as a browser sends it after a DNS
 * rebinding (fetch cannot set Host): the connection still goes to the test server on 127.0.0.1.
 */
function requestAs(
  bed: RestTestbed,
  host: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawReply> {
  const { port } = new URL(bed.server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { ...options.headers, host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const portOf = (bed: RestTestbed) => new URL(bed.server.url).port;

/** 403 with the API's envelope: `{ error: { code: host_not_allowed, message, docs_url } }`. */
function expectRefusedAsApi(bed: RestTestbed, reply: RawReply) {
  expect(reply.status).toBe(403);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(reply.text)).toEqual({
    error: {
      code: 'host_not_allowed',
      message: expect.stringContaining(`call it at ${bed.runtime.config.publicBaseUrl}`),
      docs_url: bed.runtime.config.docsUrl,
    },
  });
}

function expectRefusedAsPage(reply: RawReply) {
  expect(reply.status).toBe(403);
  expect(reply.headers['content-type']).toMatch(/^text\/html/);
  expect(reply.text).toContain('<h1>Wrong address</h1>');
  expect(reply.headers['set-cookie']).toBeUndefined();
}

describe('the Host header, with PUBLIC_BASE_URL http://127.0.0.1:3000', () => {
  const bed = useRestTestbed();
  const evil = (bed: RestTestbed) => `evil.example:${portOf(bed)}`;

  it('refuses a rebound name on /metrics and /api/v1/me with 403 host_not_allowed, and answers the loopback names', async () => {
    const auth = { authorization: `Bearer ${bed.ws.apiKey}` };
    expectRefusedAsApi(bed, await requestAs(bed, evil(bed), '/metrics'));
    expectRefusedAsApi(bed, await requestAs(bed, evil(bed), '/api/v1/me', { headers: auth }));
    for (const host of [`127.0.0.1:${portOf(bed)}`, `localhost:${portOf(bed)}`, `[::1]:${portOf(bed)}`]) {
      expect((await requestAs(bed, host, '/metrics')).status, host).toBe(200);
      const me = await requestAs(bed, host, '/api/v1/me', { headers: auth });
      expect(me.status, host).toBe(200);
      expect(JSON.parse(me.text).workspace_id).toBe(bed.ws.workspace.id);
    }
  });

  it('refuses it on /mcp and /mcp/readonly with the same envelope: the app-wide check is the only one in front of MCP', async () => {
    for (const path of ['/mcp', '/mcp/readonly']) {
      const reply = await requestAs(bed, evil(bed), path, {
        method: 'POST',
        headers: { authorization: `Bearer ${bed.ws.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expectRefusedAsApi(bed, reply);
    }
  });

  it('refuses it on the OAuth pages, the error reference and unknown paths too, and lets the health probe through', async () => {
    for (const path of [
      '/oauth/authorize?client_id=x',
      '/.well-known/oauth-authorization-server',
      '/docs/errors',
      '/nowhere',
    ]) {
      expectRefusedAsApi(bed, await requestAs(bed, evil(bed), path));
    }
    const health = await requestAs(bed, evil(bed), '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text).status).toBe('ok');
  });

  it('answers the dashboard under a rebound name with a page, and a sign-in posted through it signs nobody in', async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    // The page's cookie and token, as the rebinding page would hold them had it read the form, with
    // the Origin that page's own address gives (which matches the Host it sends).
    const browser = new Browser(bed);
    await browser.open('/app/login');
    const signIn = await requestAs(bed, evil(bed), '/app/login', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        origin: `http://${evil(bed)}`,
      },
      body: new URLSearchParams({
        _csrf: browser.csrf,
        email: person.email,
        password: person.password,
        next: '/app/inbox',
      }).toString(),
    });
    expectRefusedAsPage(signIn);
    expectRefusedAsPage(await requestAs(bed, evil(bed), '/app/login'));
    expectRefusedAsPage(await requestAs(bed, evil(bed), '/APP/inbox'));

    // The service's own address still signs in.
    await browser.signIn(person.email, person.password);
    expect((await browser.open('/app/inbox')).text).toContain(person.email);
  });
});

describe('the Host header, with a public PUBLIC_BASE_URL', () => {
  describe('and no ALLOWED_HOSTS', () => {
    const bed = useRestTestbed({ env: { PUBLIC_BASE_URL: 'https://api.example.test' } });

    it('answers any name: the proxy in front chooses what it forwards', async () => {
      const me = await requestAs(bed, 'anything.example', '/api/v1/me', {
        headers: { authorization: `Bearer ${bed.ws.apiKey}` },
      });
      expect(me.status).toBe(200);
      expect((await requestAs(bed, 'anything.example', '/app/login')).status).toBe(200);
    });
  });

  describe('and ALLOWED_HOSTS=dash.example.test', () => {
    const bed = useRestTestbed({
      env: { PUBLIC_BASE_URL: 'https://api.example.test', ALLOWED_HOSTS: ' Dash.Example.Test ' },
    });

    it("answers the base's name and the listed one, and refuses any other the same way", async () => {
      const auth = { authorization: `Bearer ${bed.ws.apiKey}` };
      for (const host of ['api.example.test', 'dash.example.test:443', 'DASH.example.test']) {
        expect((await requestAs(bed, host, '/api/v1/me', { headers: auth })).status, host).toBe(200);
        expect((await requestAs(bed, host, '/app/login')).status, host).toBe(200);
      }
      for (const host of ['127.0.0.1', 'other.example.test', 'api.example.test.evil.example']) {
        expectRefusedAsApi(bed, await requestAs(bed, host, '/api/v1/me', { headers: auth }));
        expectRefusedAsPage(await requestAs(bed, host, '/app/login'));
      }
      expect((await requestAs(bed, '10.0.0.7:3000', '/healthz')).status).toBe(200);
    });
  });

  it('refuses an ALLOWED_HOSTS entry that is not a bare host name at start-up', () => {
    for (const bad of ['https://dash.example.test', 'dash.example.test:443', 'dash.example.test/app', '::1']) {
      expect(() => loadConfig({ ALLOWED_HOSTS: bad }), bad).toThrow(/ALLOWED_HOSTS: expected host names/);
    }
    expect(loadConfig({ ALLOWED_HOSTS: 'a.example, [::1] ,10.0.0.7' }).allowedHosts).toEqual([
      'a.example',
      '[::1]',
      '10.0.0.7',
    ]);
  });
});
