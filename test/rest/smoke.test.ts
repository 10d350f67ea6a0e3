import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

describe('smoke', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  beforeEach(async () => {
    runtime = testRuntime();
    server = await startTestServer(runtime);
  });
  afterEach(() => server.close());

  it('creates and reads content over REST and MCP', async () => {
    const ws = makeWorkspace(runtime);
    const created = await call(server, 'POST', '/api/v1/content', { headers: ws.headers, body: { caption: 'hi' } });
    expect(created.status).toBe(201);
    const client = await connectMcp(runtime, ws.apiKey);
    const result = await client.callTool({ name: 'service_get_content', arguments: { id: created.body.id } });
    expect(result.structuredContent).toEqual(created.body);
  });
});
