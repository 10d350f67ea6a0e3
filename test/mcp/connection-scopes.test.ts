import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../tools/index.ts';
import { requiredScope } from '../../src/core/oauth/scopes.ts';
import { makeCampaign, makeContent, makeWorkspace } from '../helpers/factories.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';
import { call, readReply, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { BASE_URL, baseEnv } from '../helpers/rest-expect.ts';

const READ_ONLY_TOOLS = TOOLS.filter((tool) => tool.annotations.readOnlyHint === true).map((tool) => tool.name);

async function mcp(
  bed: RestTestbed,
  bearer: string,
  message: Record<string, unknown>,
  { path = '/mcp', headers = {} }: { path?: string; headers?: Record<string, string> } = {},
) {
  const res = await bed.server.request(path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
  return readReply(res);
}

async function listedNames(bed: RestTestbed, bearer: string, options: Parameters<typeof mcp>[3] = {}) {
  const reply = await mcp(bed, bearer, { method: 'tools/list' }, options);
  expect(reply.status).toBe(200);
  return (reply.body.result.tools as Array<{ name: string }>).map((tool) => tool.name);
}

const initialize = {
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
};

describe('scopes: which operations a token may run', () => {
  it('maps reads to read, edits to write, publishing and launching to publish', () => {
    const scopeOf = (name: string) => requiredScope(TOOLS.find((tool) => tool.name === name)!.operation);
    for (const name of READ_ONLY_TOOLS) expect(scopeOf(name), name).toBe('read');
    expect(READ_ONLY_TOOLS).toHaveLength(11);
    for (const name of ['service_create_content', 'service_update_content', 'service_delete_campaign'])
      expect(scopeOf(name), name).toBe('write');
    expect(scopeOf('service_update_brand_profile')).toBe('write');
    expect(scopeOf('service_publish_content')).toBe('publish');
    expect(scopeOf('service_launch_campaign')).toBe('publish');
  });
});

describe('scopes and tool selection on /mcp', () => {
  const bed = useRestTestbed({ env: baseEnv });

  it('lists only the read-only tools to a read token, and answers 403 insufficient_scope to a publish call', async () => {
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read']);
    expect(await listedNames(bed, accessToken)).toEqual(READ_ONLY_TOOLS);
    const refused = await mcp(bed, accessToken, {
      method: 'tools/call',
      params: { name: 'service_publish_content', arguments: { id: 'cnt_x' } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="publish", resource_metadata="${BASE_URL}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(JSON.stringify(refused.body)).not.toContain(accessToken);
  });

  it('lets a read write token see the writing tools but not publish or launch', async () => {
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read', 'write']);
    const names = await listedNames(bed, accessToken);
    expect(names).toContain('service_create_content');
    expect(names).not.toContain('service_publish_content');
    expect(names).not.toContain('service_launch_campaign');
    const launch = await mcp(bed, accessToken, {
      method: 'tools/call',
      params: { name: 'service_launch_campaign', arguments: { id: 'cmp_x' } },
    });
    expect(launch.status).toBe(403);
    expect(launch.headers.get('www-authenticate')).toContain('scope="publish"');
  });

  it('gives an API key every tool, and a read token a working read tool', async () => {
    expect(await listedNames(bed, bed.ws.apiKey)).toEqual(TOOLS.map((tool) => tool.name));
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read']);
    const read = await mcp(bed, accessToken, {
      method: 'tools/call',
      params: { name: 'service_list_content', arguments: {} },
    });
    expect(read.status).toBe(200);
    expect(read.body.result.isError).not.toBe(true);
  });

  it('narrows to read-only tools on /mcp/readonly and with X-MCP-Readonly: true, saying so in the instructions', async () => {
    expect(await listedNames(bed, bed.ws.apiKey, { path: '/mcp/readonly' })).toEqual(READ_ONLY_TOOLS);
    expect(await listedNames(bed, bed.ws.apiKey, { headers: { 'x-mcp-readonly': 'true' } })).toEqual(READ_ONLY_TOOLS);
    const hidden = await mcp(bed, bed.ws.apiKey, initialize, { path: '/mcp/readonly' });
    expect(hidden.body.result.instructions).toContain('exposes only some of the tools');
    const all = await mcp(bed, bed.ws.apiKey, initialize);
    expect(all.body.result.instructions).not.toContain('exposes only some of the tools');
    // A write tool hidden by the connection is an unknown tool, not a scope problem.
    const call = await mcp(
      bed,
      bed.ws.apiKey,
      { method: 'tools/call', params: { name: 'service_create_content', arguments: {} } },
      { path: '/mcp/readonly' },
    );
    expect(call.status).toBe(200);
    expect(call.body.error.code).toBe(-32602);
  });

  it('narrows to the tools X-MCP-Tools names, intersected with the token scopes', async () => {
    const headers = { 'x-mcp-tools': 'service_get_account, service_publish_content' };
    expect(await listedNames(bed, bed.ws.apiKey, { headers })).toEqual([
      'service_get_account',
      'service_publish_content',
    ]);
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read']);
    expect(await listedNames(bed, accessToken, { headers })).toEqual(['service_get_account']);
    const readOnly = { ...headers, 'x-mcp-readonly': 'true' };
    expect(await listedNames(bed, bed.ws.apiKey, { headers: readOnly })).toEqual(['service_get_account']);
  });

  it('answers 400 unknown_tool to an X-MCP-Tools name that is no tool', async () => {
    const reply = await mcp(
      bed,
      bed.ws.apiKey,
      { method: 'tools/list' },
      {
        headers: { 'x-mcp-tools': 'service_get_account,service_nope' },
      },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('unknown_tool');
    expect(reply.body.error.message).toContain('service_nope');
  });

  it('still answers a body that is no JSON with the JSON-RPC parse error', async () => {
    const res = await bed.server.request('/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${bed.ws.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{not json',
    });
    const reply = await readReply(res);
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe(-32700);
  });
});

describe('scopes on REST', () => {
  const bed = useRestTestbed({ env: baseEnv });

  it('lets a read token GET, and answers 403 insufficient_scope to a write, in the error envelope', async () => {
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read']);
    const headers = { authorization: `Bearer ${accessToken}` };
    expect((await call(bed.server, 'GET', '/api/v1/content', { headers })).status).toBe(200);
    const write = await call(bed.server, 'POST', '/api/v1/content', { headers, body: { body: 'Hello' } });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('insufficient_scope');
    expect(write.body.error.message).toContain('write');
    expect(JSON.stringify(write.body)).not.toContain(accessToken);
  });

  it('answers 403 to a write token publishing, and lets an API key through', async () => {
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read', 'write']);
    const publish = await call(bed.server, 'POST', '/api/v1/content/cnt_x/publish', {
      headers: { authorization: `Bearer ${accessToken}` },
      body: {},
    });
    expect(publish.status).toBe(403);
    expect(publish.body.error.code).toBe('insufficient_scope');
    const withKey = await call(bed.server, 'POST', '/api/v1/content/cnt_x/publish', {
      headers: { authorization: `Bearer ${bed.ws.apiKey}` },
      body: {},
    });
    expect(withKey.status).toBe(404);
  });
});

describe("scopes on a server without the HTTP gate: core's check refuses", () => {
  it('answers a read token calling a write tool with an insufficient_scope tool error, and changes nothing', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const { accessToken } = await issueTestToken(runtime, workspace.id, ['read']);
    // Every tool is given to this server: only the operation's own check stands between the token and a write.
    const client = await connectMcp(runtime, accessToken);
    try {
      const item = await makeContent(runtime, workspace, { caption: 'Before' });
      const refused = await toolError(
        client,
        'service_update_content',
        { id: item.id, caption: 'After' },
        'insufficient_scope',
      );
      expect(refused.message).toMatch(/lacks the write scope/);
      const launch = await toolError(
        client,
        'service_launch_campaign',
        { id: (await makeCampaign(runtime, workspace)).id },
        'insufficient_scope',
      );
      expect(launch.message).toMatch(/lacks the publish scope/);
      expect((await toolResult(client, 'service_get_content', { id: item.id })).caption).toBe('Before');
    } finally {
      await client.close();
    }
  });
});
