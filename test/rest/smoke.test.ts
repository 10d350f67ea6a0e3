import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { connectMcp } from '../helpers/mcp.ts';

describe('smoke', () => {
  const bed = useRestTestbed();

  it('creates and reads content over REST and MCP', async () => {
    const ws = await makeWorkspace(bed.runtime);
    const created = await call(bed.server, 'POST', '/api/v1/content', { headers: ws.headers, body: { caption: 'hi' } });
    expect(created.status).toBe(201);
    const client = await connectMcp(bed.runtime, ws.apiKey);
    const result = await client.callTool({ name: 'service_get_content', arguments: { id: created.body.id } });
    expect(result.structuredContent).toEqual(created.body);
  });
});
