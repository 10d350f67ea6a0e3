import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/core/accounts/api-keys.ts';
import { TOOLS } from '../../tools/index.ts';
import { makeKey, makeWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer, useRestTestbed } from '../helpers/http.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const callList = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'service_list_content', arguments: {} },
};

/** A response body as loosely typed JSON. */
const json = (res: Response): Promise<any> => res.json();

async function connectHttp(server: TestServer, apiKey: string, errors: Error[]): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  const client = new Client({ name: 'http-test-client', version: '1.0.0' });
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return client;
}

describe('MCP over streamable HTTP at /mcp', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    bed.server.request('/mcp', { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });

  const bed = useRestTestbed();

  it('initializes, lists the tools and calls them with the SDK client', async () => {
    const errors: Error[] = [];
    const client = await connectHttp(bed.server, bed.ws.apiKey, errors);
    try {
      expect(client.getServerVersion()?.name).toBeTruthy();
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toHaveLength(TOOLS.length);
      expect(tools.map((t) => t.name)).toContain('service_publish_content');

      const created = await toolResult(client, 'service_create_content', {
        caption: 'Over HTTP',
        target_platforms: ['twitter'],
      });
      const viaRest = await call(bed.server, 'GET', `/api/v1/content/${created.id}`, { headers: bed.ws.headers });
      expect(created).toEqual(viaRest.body);
      expect(await toolResult(client, 'service_get_content', { id: created.id })).toEqual(created);
      await toolError(client, 'service_get_content', { id: '00000000-0000-4000-8000-000000000000' }, 'not_found');
    } finally {
      await client.close();
    }
    expect(errors).toEqual([]);
  });

  it('answers service_get_account for a past_due workspace and payment_required on content tools', async () => {
    const pastDue = await makeWorkspace(bed.runtime, { status: 'past_due' });
    const client = await connectHttp(bed.server, pastDue.apiKey, []);
    try {
      expect(await toolResult(client, 'service_get_account')).toMatchObject({
        plan_status: 'past_due',
        is_active: false,
      });
      await toolError(client, 'service_list_content', {}, 'payment_required');
    } finally {
      await client.close();
    }
  });

  describe('the gate', () => {
    // PUBLIC_BASE_URL of the test runtime: the challenge names it, absolute, whatever host was called.
    const resourceMetadata = 'resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"';

    it('answers 401 missing_key with the OAuth challenge (metadata and scopes, no error) without Authorization', async () => {
      const res = await post(listTools);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer ${resourceMetadata}, scope="read write publish"`);
      expect((await json(res)).error.code).toBe('missing_key');
    });

    it('answers 401 with error="invalid_token" for an unknown, a revoked or an expired key', async () => {
      const challenge = (res: Response) => res.headers.get('www-authenticate');
      const unknown = await post(listTools, { authorization: `Bearer np_live_${'Z'.repeat(38)}` });
      expect(unknown.status).toBe(401);
      expect(challenge(unknown)).toMatch(
        new RegExp(
          `^Bearer ${resourceMetadata}, scope="read write publish", error="invalid_token", error_description="[^"]+"$`,
        ),
      );
      expect((await json(unknown)).error.code).toBe('invalid_key');

      const revokedKey = await makeKey(bed.runtime, bed.ws.workspace.id);
      await revokeApiKey(bed.runtime, revokedKey.keyId);
      const revoked = await post(listTools, { authorization: `Bearer ${revokedKey.apiKey}` });
      expect(revoked.status).toBe(401);
      expect(challenge(revoked)).toContain('error="invalid_token"');

      const expiring = await makeKey(
        bed.runtime,
        bed.ws.workspace.id,
        new Date(bed.runtime.clock.now().getTime() + 1000),
      );
      bed.runtime.clock.advance(1000);
      const expired = await post(listTools, { authorization: `Bearer ${expiring.apiKey}` });
      expect(expired.status).toBe(401);
      expect(challenge(expired)).toMatch(/^Bearer resource_metadata=".*error="invalid_token"/);
      expect((await json(expired)).error.code).toBe('expired_key');
    });

    it('treats a bearer token that is not an API key as sent and refused: invalid_token, the body still missing_key', async () => {
      const res = await post(listTools, { authorization: 'Bearer gho_notatokenofthisservice' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect((await json(res)).error.code).toBe('missing_key');
    });

    it('refuses an OAuth access token the service never issued as invalid_key, with invalid_token', async () => {
      const res = await post(listTools, { authorization: 'Bearer np_oat_notatokenthisserviceissued' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect((await json(res)).error.code).toBe('invalid_key');
    });

    it('keeps the challenge off /mcp answers that are not 401, and off the REST 401', async () => {
      const ok = await post(listTools, { authorization: `Bearer ${bed.ws.apiKey}` });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('www-authenticate')).toBeNull();
      const rest = await call(bed.server, 'GET', '/api/v1/me');
      expect(rest.status).toBe(401);
      expect(rest.headers.get('www-authenticate')).toBeNull();
    });

    it('answers 403 origin_not_allowed to a foreign browser Origin, even with a good key', async () => {
      const res = await post(callList, { authorization: `Bearer ${bed.ws.apiKey}`, origin: 'http://evil.example' });
      expect(res.status).toBe(403);
      expect((await json(res)).error.code).toBe('origin_not_allowed');
      const page = await call(bed.server, 'GET', '/api/v1/me', { headers: bed.ws.headers });
      // The refused call consumed no read.
      expect(page.headers.get('x-ratelimit-remaining')).toBe('299');
    });

    it("lets the service's own origin (PUBLIC_BASE_URL) through", async () => {
      const res = await post(listTools, { authorization: `Bearer ${bed.ws.apiKey}`, origin: 'http://127.0.0.1:3000' });
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.id).toBe(1);
      expect(body.result.tools).toHaveLength(TOOLS.length);
    });

    it('lets an origin listed in MCP_ALLOWED_ORIGINS through and still refuses others', async () => {
      const configured = await testRuntime({
        env: { MCP_ALLOWED_ORIGINS: 'https://app.example.com, https://studio.example.org' },
      });
      const other = await startTestServer(configured);
      try {
        const key = (await makeWorkspace(configured)).apiKey;
        for (const origin of ['https://app.example.com', 'https://studio.example.org', 'http://127.0.0.1:3000']) {
          const res = await other.request('/mcp', {
            method: 'POST',
            headers: { ...MCP_HEADERS, authorization: `Bearer ${key}`, origin },
            body: JSON.stringify(listTools),
          });
          expect(res.status, origin).toBe(200);
          expect((await json(res)).result.tools).toHaveLength(TOOLS.length);
        }
        const refused = await other.request('/mcp', {
          method: 'POST',
          headers: { ...MCP_HEADERS, authorization: `Bearer ${key}`, origin: 'https://app.example.com.evil.example' },
          body: JSON.stringify(listTools),
        });
        expect(refused.status).toBe(403);
      } finally {
        await other.close();
      }
    });

    it('answers GET and DELETE with 405 and Allow: POST', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await bed.server.request('/mcp', {
          method,
          headers: { authorization: `Bearer ${bed.ws.apiKey}`, accept: 'text/event-stream' },
        });
        expect(res.status, method).toBe(405);
        expect(res.headers.get('allow'), method).toBe('POST');
        expect((await json(res)).error.code).toBe('method_not_allowed');
      }
    });

    it('puts X-RateLimit-* headers on a tools/call response, from the bucket the tool takes', async () => {
      const res = await post(callList, { authorization: `Bearer ${bed.ws.apiKey}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('300');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('299');
      // The window of 2026-03-10T12:00:30Z rolls over at 12:01:00Z.
      expect(res.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-03-10T12:01:00Z') / 1000));
      const body = await json(res);
      expect(body.result.structuredContent).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });

      const write = await post(
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'service_create_content', arguments: { caption: 'Hi' } },
        },
        { authorization: `Bearer ${bed.ws.apiKey}` },
      );
      expect(write.headers.get('x-ratelimit-limit')).toBe('60');
      expect(write.headers.get('x-ratelimit-remaining')).toBe('59');
    });
  });
});
