import { beforeEach, describe, expect, it } from 'vitest';
import { makeContent } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { useMcpTestbed } from '../helpers/mcp.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** Rate limits: MCP tool calls consume the same buckets as their endpoints. */
describe('rate limits shared between REST and MCP', () => {
  const bed = useMcpTestbed({ env: { RATE_LIMIT_READ: '5', RATE_LIMIT_WRITE: '4' } });
  let itemId: string;
  const get = (path: string) => call(bed.server, 'GET', path, { headers: bed.ws.headers });

  beforeEach(async () => {
    itemId = (await makeContent(bed.runtime, bed.ws.workspace)).id;
  });

  it('3 REST reads and 2 tool reads empty the read bucket; the next REST read gets 429 and the next tool read rate_limit_exceeded', async () => {
    const first = await get('/api/v1/content');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
    await toolResult(bed.client, 'service_list_content');
    const second = await get(`/api/v1/content/${itemId}`);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-remaining')).toBe('2');
    await toolResult(bed.client, 'service_get_content', { id: itemId });
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
      const error = await toolError(bed.client, name, {}, 'rate_limit_exceeded');
      expect(error.retry_after).toBe(30);
    }
    await toolError(bed.client, 'service_get_content', { id: itemId }, 'rate_limit_exceeded');
  });

  it('tool reads alone empty the bucket for REST too', async () => {
    for (let i = 0; i < 5; i += 1) await toolResult(bed.client, 'service_get_account');
    const refused = await get('/api/v1/me');
    expect(refused.status).toBe(429);
    expect(refused.body.retry_after).toBe(30);
  });

  it('tool writes and REST writes share the write bucket; reads are not touched', async () => {
    await toolResult(bed.client, 'service_create_content', { caption: 'One' });
    expect(
      (await call(bed.server, 'POST', '/api/v1/content', { headers: bed.ws.headers, body: { caption: 'Two' } })).status,
    ).toBe(201);
    await toolResult(bed.client, 'service_update_content', { id: itemId, caption: 'Three' });
    const rest = await call(bed.server, 'PATCH', `/api/v1/content/${itemId}`, {
      headers: bed.ws.headers,
      body: { caption: 'Four' },
    });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('0');
    await toolError(bed.client, 'service_create_content', { caption: 'Five' }, 'rate_limit_exceeded');
    expect(
      (await call(bed.server, 'POST', '/api/v1/content', { headers: bed.ws.headers, body: { caption: 'Five' } }))
        .status,
    ).toBe(429);
    const page = await get('/api/v1/content?limit=100');
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(3);
  });

  it('a refused call consumes nothing and the next window starts afresh for both doors', async () => {
    for (let i = 0; i < 5; i += 1) await toolResult(bed.client, 'service_list_content');
    for (let i = 0; i < 3; i += 1) {
      await toolError(bed.client, 'service_list_content', {}, 'rate_limit_exceeded');
      expect((await get('/api/v1/content')).status).toBe(429);
    }
    bed.runtime.clock.advance(30_000);
    const fresh = await get('/api/v1/content');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('4');
    for (let i = 0; i < 4; i += 1) await toolResult(bed.client, 'service_list_content');
    await toolError(bed.client, 'service_list_content', {}, 'rate_limit_exceeded');
  });
});
