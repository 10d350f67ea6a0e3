import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../tools/index.ts';
import { readReply, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { BASE_URL, baseEnv } from '../helpers/rest-expect.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';

/**
 * `/mcp/readonly` serves only the read tools, however the path is spelled: Express matches routes
 * without regard to case or a trailing slash, so the read-only limit must come from the route that
 * matched, never from comparing the path's text. Each spelling is tried on the three ways a request
 * is served (src/mcp/http.ts): the direct 2026-07-28 tools/call path, the SDK's 2026-07-28 handler,
 * and the 2025-11-25 transport.
 */

const READ_TOOLS = TOOLS.filter((tool) => tool.annotations.readOnlyHint === true).map((tool) => tool.name);
const ALL_TOOLS = TOOLS.map((tool) => tool.name);
const REVISION = '2026-07-28';
const LEGACY_REVISION = '2025-11-25';

/** Every spelling Express routes to `/mcp/readonly` (or might); each must be read-only or not served. */
const READ_ONLY_SPELLINGS = [
  '/mcp/readonly',
  '/mcp/readonly/',
  '/MCP/READONLY',
  '/mcp/ReadOnly',
  '/Mcp/Readonly/',
  '/mcp//readonly',
  '/mcp/readonly?x',
  '/mcp/readonly/?x=1',
  '/mcp/%72eadonly',
];

interface McpRequest {
  headers: Record<string, string>;
  body: unknown;
}

/** A 2026-07-28 request: the envelope in `_meta`, the standard headers mirroring the body. */
function modern(id: number, method: string, params: Record<string, unknown> = {}): McpRequest {
  return {
    headers: {
      'mcp-protocol-version': REVISION,
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
    body: {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': REVISION,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'readonly-test', version: '1.0.0' },
        },
      },
    },
  };
}

/** A 2025-11-25 request: no envelope, the protocol version header a client sends after initialize. */
function legacy(id: number, method: string, params: Record<string, unknown> = {}): McpRequest {
  return {
    headers: { 'mcp-protocol-version': LEGACY_REVISION },
    body: { jsonrpc: '2.0', id, method, params },
  };
}

/** Posts to the path exactly as spelled (plain fetch: the OpenAPI check knows only the canonical /mcp spelling). */
async function send(bed: RestTestbed, path: string, request: McpRequest, bearer = bed.ws.apiKey) {
  const res = await fetch(bed.server.url + path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...request.headers,
    },
    body: JSON.stringify(request.body),
  });
  return readReply(res);
}

const createArgs = { caption: 'Written through the read-only door', content_type: 'text_only' };

/** How many content items the workspace holds, read through the full door with the key. */
async function contentCount(bed: RestTestbed): Promise<number> {
  const listed = await send(bed, '/mcp', modern(99, 'tools/call', { name: 'service_list_content', arguments: {} }));
  expect(listed.status).toBe(200);
  return (listed.body.result.structuredContent.data as unknown[]).length;
}

describe('/mcp/readonly, however it is spelled', () => {
  const bed = useRestTestbed({ env: baseEnv });

  for (const path of READ_ONLY_SPELLINGS) {
    it(`${path}: lists only the read tools and refuses a write, on every path through the door`, async () => {
      const modernList = await send(bed, path, modern(1, 'tools/list'));
      const legacyList = await send(bed, path, legacy(2, 'tools/list'));
      const direct = await send(
        bed,
        path,
        modern(3, 'tools/call', { name: 'service_create_content', arguments: createArgs }),
      );
      const legacyCall = await send(
        bed,
        path,
        legacy(4, 'tools/call', { name: 'service_create_content', arguments: createArgs }),
      );
      if (modernList.status === 404) {
        // Not routed at all (Express does not fold `//`): nothing is served there, writes included.
        for (const answer of [legacyList, direct, legacyCall]) expect(answer.status, path).toBe(404);
      } else {
        expect(modernList.status, path).toBe(200);
        expect
          .soft(
            modernList.body.result.tools.map((tool: { name: string }) => tool.name),
            path,
          )
          .toEqual(READ_TOOLS);
        expect(legacyList.status, path).toBe(200);
        expect
          .soft(
            legacyList.body.result.tools.map((tool: { name: string }) => tool.name),
            path,
          )
          .toEqual(READ_TOOLS);
        // A tool the connection leaves out is an unknown tool, on the 2026-07-28 path and the 2025 one alike.
        expect.soft(direct.body.error?.code, `${path}: ${JSON.stringify(direct.body)}`).toBe(-32602);
        expect.soft(legacyCall.body.error?.code, `${path}: ${JSON.stringify(legacyCall.body)}`).toBe(-32602);
      }
      expect(await contentCount(bed), `${path}: nothing was written`).toBe(0);
    });
  }

  it('still serves every tool on /mcp, whatever its spelling, and a write there works', async () => {
    for (const path of ['/mcp', '/mcp/', '/MCP', '/mcp?x']) {
      const list = await send(bed, path, modern(1, 'tools/list'));
      expect(list.status, path).toBe(200);
      expect(
        list.body.result.tools.map((tool: { name: string }) => tool.name),
        path,
      ).toEqual(ALL_TOOLS);
    }
    const created = await send(
      bed,
      '/MCP/',
      modern(2, 'tools/call', { name: 'service_create_content', arguments: createArgs }),
    );
    expect(created.body.result.isError, JSON.stringify(created.body)).not.toBe(true);
    expect(await contentCount(bed)).toBe(1);
  });

  it('holds a token for the read-only door to reading wherever it is used, whatever scopes its grant row names', async () => {
    // Minted by the core steps with all three scopes: the consent page and the token endpoint cut a
    // grant for the door to read, and the credential holds the cut even for a row that says otherwise.
    const { accessToken } = await issueTestToken(
      bed.runtime,
      bed.ws.workspace.id,
      ['read', 'write', 'publish'],
      'Door client',
      null,
      `${BASE_URL}/mcp/readonly`,
    );
    const list = await send(bed, '/mcp', modern(1, 'tools/list'), accessToken);
    expect(list.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(READ_TOOLS);
    for (const request of [
      modern(2, 'tools/call', { name: 'service_create_content', arguments: createArgs }),
      legacy(3, 'tools/call', { name: 'service_create_content', arguments: createArgs }),
    ]) {
      const refused = await send(bed, '/mcp', request, accessToken);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_scope');
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", scope="write", resource_metadata="${BASE_URL}/.well-known/oauth-protected-resource/mcp"`,
      );
    }
    const rest = await fetch(`${bed.server.url}/api/v1/content`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(createArgs),
    });
    expect(rest.status).toBe(403);
    expect(await contentCount(bed)).toBe(0);
  });
});
