import { describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { connectMcp, useMcpTestbed } from '../helpers/mcp.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

const env = { ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64') };

/** service_list_webhooks: GET /webhooks through the SDK client. */
describe('MCP service_list_webhooks', () => {
  const bed = useMcpTestbed({ env });

  const create = async (workspace: TestWorkspace, body: Record<string, unknown>) => {
    const res = await call(bed.server, 'POST', '/api/v1/webhooks', { headers: workspace.headers, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };

  it('is listed read-only after service_get_analytics, takes no arguments, and explains the fields', async () => {
    const { tools } = await bed.client.listTools();
    const tool = tools.find((t) => t.name === 'service_list_webhooks');
    expect(tool).toBeDefined();
    expect(tool!.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(Object.keys(tool!.inputSchema.properties ?? {})).toEqual([]);
    expect(tool!.description).toMatch(/auto_disabled_at/);
    expect(tool!.description).toMatch(/signing_secret is always null/);
    const names = tools.map((t) => t.name);
    expect(names.indexOf('service_list_webhooks')).toBe(names.indexOf('service_get_analytics') + 1);
  });

  it('answers what GET /api/v1/webhooks answers, with every signing_secret null', async () => {
    const first = await create(bed.ws, { url: 'https://93.184.216.34/a', events: ['content.published'] });
    bed.runtime.clock.advance(1000);
    const second = await create(bed.ws, { url: 'https://1.1.1.1/b' });

    const listed = await toolResult(bed.client, 'service_list_webhooks');
    const rest = await call(bed.server, 'GET', '/api/v1/webhooks', { headers: bed.ws.headers });
    expect(rest.status).toBe(200);
    expect(listed).toEqual(rest.body);
    expect(listed).toEqual({
      object: 'list',
      data: [
        { ...second, signing_secret: null },
        { ...first, signing_secret: null },
      ],
      has_more: false,
      next_cursor: null,
    });
    // Arguments the REST route ignores are ignored here too.
    expect(await toolResult(bed.client, 'service_list_webhooks', { limit: 1, cursor: 'x' })).toEqual(listed);
  });

  it("never shows another workspace's webhooks", async () => {
    const other = await makeWorkspace(bed.runtime);
    const theirs = await create(other, { url: 'https://93.184.216.34/theirs' });
    expect((await toolResult(bed.client, 'service_list_webhooks')).data).toEqual([]);
    const theirClient = await connectMcp(bed.runtime, other.apiKey);
    try {
      expect((await toolResult(theirClient, 'service_list_webhooks')).data.map((w: any) => w.id)).toEqual([theirs.id]);
    } finally {
      await theirClient.close();
    }
  });

  it('refuses a caller without a valid key, like the route', async () => {
    const anonymous = await connectMcp(bed.runtime, undefined);
    try {
      await toolError(anonymous, 'service_list_webhooks', {}, 'missing_key');
    } finally {
      await anonymous.close();
    }
  });
});
