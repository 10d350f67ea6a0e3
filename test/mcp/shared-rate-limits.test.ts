import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContent, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** Rate limits: MCP tool calls consume the same buckets as their endpoints. */
describe('rate limits shared between REST and MCP', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  let ws: TestWorkspace;
  let client: Client;
  let itemId: string;
  const get = (path: string) => call(server, 'GET', path, { headers: ws.headers });

  beforeEach(async () => {
    // 12:00:30: the window rolls over in 30 seconds.
    runtime = testRuntime({ env: { RATE_LIMIT_READ: '5', RATE_LIMIT_WRITE: '4' } });
    server = await startTestServer(runtime);
    ws = makeWorkspace(runtime);
    client = await connectMcp(runtime, ws.apiKey);
    itemId = makeContent(runtime, ws.workspace).id;
  });
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it('3 REST reads and 2 tool reads empty the read bucket; the next REST read gets 429 and the next tool read rate_limit_exceeded', async () => {
    const first = await get('/api/v1/content');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
    await toolResult(client, 'service_list_content');
    const second = await get(`/api/v1/content/${itemId}`);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-remaining')).toBe('2');
    await toolResult(client, 'service_get_content', { id: itemId });
    const third = await get('/api/v1/me');
    expect(third.status).toBe(200);
    expect(third.headers.get('x-ratelimit-remaining')).toBe('0');

    const refused = await get('/api/v1/content');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      object: 'error',
      type: 'rate_limit_exceeded',
      message: expect.any(String),
      retry_after: 30,
    });
    expect(refused.headers.get('retry-after')).toBe('30');

    for (const name of ['service_list_content', 'service_get_account']) {
      const error = await toolError(client, name, {}, 'rate_limit_exceeded');
      expect(error.retry_after).toBe(30);
    }
    await toolError(client, 'service_get_content', { id: itemId }, 'rate_limit_exceeded');
  });

  it('tool reads alone empty the bucket for REST too', async () => {
    for (let i = 0; i < 5; i += 1) await toolResult(client, 'service_get_account');
    const refused = await get('/api/v1/me');
    expect(refused.status).toBe(429);
    expect(refused.body.retry_after).toBe(30);
  });

  it('tool writes and REST writes share the write bucket; reads are not touched', async () => {
    await toolResult(client, 'service_create_content', { caption: 'One' });
    expect(
      (await call(server, 'POST', '/api/v1/content', { headers: ws.headers, body: { caption: 'Two' } })).status,
    ).toBe(201);
    await toolResult(client, 'service_update_content', { id: itemId, caption: 'Three' });
    const rest = await call(server, 'PATCH', `/api/v1/content/${itemId}`, {
      headers: ws.headers,
      body: { caption: 'Four' },
    });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('0');
    await toolError(client, 'service_create_content', { caption: 'Five' }, 'rate_limit_exceeded');
    expect(
      (await call(server, 'POST', '/api/v1/content', { headers: ws.headers, body: { caption: 'Five' } })).status,
    ).toBe(429);
    const page = await get('/api/v1/content?limit=100');
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(3);
  });

  it('a refused call consumes nothing and the next window starts afresh for both doors', async () => {
    for (let i = 0; i < 5; i += 1) await toolResult(client, 'service_list_content');
    for (let i = 0; i < 3; i += 1) {
      await toolError(client, 'service_list_content', {}, 'rate_limit_exceeded');
      expect((await get('/api/v1/content')).status).toBe(429);
    }
    runtime.clock.advance(30_000);
    const fresh = await get('/api/v1/content');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('4');
    for (let i = 0; i < 4; i += 1) await toolResult(client, 'service_list_content');
    await toolError(client, 'service_list_content', {}, 'rate_limit_exceeded');
  });
});
