import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** service_list_templates end to end through the SDK client: the same answers as GET /api/v1/templates. */
describe('MCP service_list_templates', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  let ws: TestWorkspace;
  let client: Client;
  beforeEach(async () => {
    runtime = testRuntime();
    server = await startTestServer(runtime);
    ws = makeWorkspace(runtime);
    client = await connectMcp(runtime, ws.apiKey);
  });
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  const rest = async (query: string) => {
    const res = await call(server, 'GET', `/api/v1/templates${query}`, { headers: ws.headers });
    expect(res.status).toBe(200);
    return res.body;
  };

  it('answers what the REST route answers, with and without filters, page by page', async () => {
    const all = await toolResult(client, 'service_list_templates');
    expect(all).toEqual(await rest(''));
    expect(all.data).toHaveLength(25);

    const filtered = await toolResult(client, 'service_list_templates', { niche: 'fitness', source_platform: 'instagram', limit: 100 });
    expect(filtered).toEqual(await rest('?niche=fitness&source_platform=instagram&limit=100'));
    expect(filtered.data.length).toBeGreaterThan(0);
    for (const template of filtered.data) {
      expect(template.niches).toContain('fitness');
      expect(template.source_platform).toBe('instagram');
    }

    const byType = await toolResult(client, 'service_list_templates', { content_type: 'talking_head', limit: 2 });
    expect(byType).toEqual(await rest('?content_type=talking_head&limit=2'));
    expect(byType.has_more).toBe(true);
    const next = await toolResult(client, 'service_list_templates', { content_type: 'talking_head', limit: 2, cursor: byType.next_cursor });
    expect(next).toEqual(await rest(`?content_type=talking_head&limit=2&cursor=${byType.next_cursor}`));
    expect(next.data.map((t: any) => t.id)).not.toContain(byType.data[0].id);
  });

  it('refuses an unknown platform with the API\'s invalid_body, and needs a key', async () => {
    const error = await toolError(client, 'service_list_templates', { source_platform: 'myspace' }, 'invalid_body');
    const viaRest = await call(server, 'GET', '/api/v1/templates?source_platform=myspace', { headers: ws.headers });
    expect({ code: error.code, message: error.message, details: error.details }).toEqual({
      code: viaRest.body.error.code,
      message: viaRest.body.error.message,
      details: viaRest.body.error.details,
    });
    const anonymous = await connectMcp(runtime, undefined);
    try {
      await toolError(anonymous, 'service_list_templates', {}, 'missing_key');
    } finally {
      await anonymous.close();
    }
  });
});
