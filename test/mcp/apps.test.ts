import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '@modelcontextprotocol/ext-apps/server';
import { MAX_VIEW_BYTES } from '../../src/mcp/apps/views.ts';
import { PLATFORM_NAMES } from '../../src/core/platforms/registry.ts';
import { TOOLS } from '../../tools/index.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';

const MIME = 'text/html;profile=mcp-app';
const VIEW_OF: Record<string, string> = {
  service_get_content: 'ui://content/preview',
  service_create_content: 'ui://content/preview',
  service_update_content: 'ui://content/preview',
  service_publish_content: 'ui://content/preview',
  service_list_content: 'ui://content/list',
};

describe('MCP Apps: the views and the tools that open them', () => {
  const bed = useRestTestbed();

  /** A 2026-07-28 client over HTTP; a host that shows views declares the extension. */
  async function connect(token = bed.ws.apiKey, path = '/mcp', { rendersViews = true } = {}): Promise<Client> {
    const client = new Client(
      { name: 'apps-test', version: '1.0.0' },
      {
        versionNegotiation: { mode: 'auto' },
        ...(rendersViews ? { capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [MIME] } } } as object } : {}),
      },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(bed.server.url + path), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  it('lists _meta.ui.resourceUri on the five content tools and on no other', async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(TOOLS.length);
      for (const tool of tools) {
        if (VIEW_OF[tool.name]) {
          expect(tool._meta).toEqual({
            ui: { resourceUri: VIEW_OF[tool.name] },
            // The deprecated flat key, for hosts older than the stable revision.
            'ui/resourceUri': VIEW_OF[tool.name],
          });
        } else expect(tool._meta).toBeUndefined();
      }
    } finally {
      await client.close();
    }
  });

  it('reads each view as one whole HTML document of the MCP App type, with the CSP naming only the service origin', async () => {
    const client = await connect();
    try {
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri).sort()).toEqual(['ui://content/list', 'ui://content/preview']);
      for (const uri of ['ui://content/preview', 'ui://content/list']) {
        const { contents } = await client.readResource({ uri });
        expect(contents).toHaveLength(1);
        const [view] = contents as [{ uri: string; mimeType: string; text: string; _meta: any }];
        expect(view.uri).toBe(uri);
        expect(view.mimeType).toBe(MIME);
        expect(view._meta.ui.csp).toEqual({ resourceDomains: ['http://127.0.0.1:3000'] });
        expect(view.text).toMatch(/^<!doctype html><html lang="en"><head>/);
        expect(view.text).toMatch(/<\/html>$/);
        expect(view.text).toMatch(/<script>[\s\S]+<\/script>/);
        // Self-contained: nothing loaded by URL, no script or style from elsewhere.
        expect(view.text).not.toMatch(/<script[^>]+src=|<link\b|@import|https?:\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
        expect(Buffer.byteLength(view.text)).toBeLessThan(MAX_VIEW_BYTES);
      }
    } finally {
      await client.close();
    }
  });

  it('answers resources/read on revision 2026-07-28 without initialize, publicly cacheable', async () => {
    const revision = '2026-07-28';
    const res = await bed.server.request('/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${bed.ws.apiKey}`,
        'mcp-protocol-version': revision,
        'mcp-method': 'resources/read',
        'mcp-name': 'ui://content/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'resources/read',
        params: {
          uri: 'ui://content/list',
          _meta: {
            'io.modelcontextprotocol/protocolVersion': revision,
            'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/ui': {} } },
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as any;
    expect(result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    expect(result.contents[0]).toMatchObject({ uri: 'ui://content/list', mimeType: MIME });
    expect(result.contents[0].text).toMatch(/^<!doctype html>/);
  });

  it('answers an unknown ui:// URI with an invalid-params error, not a document', async () => {
    const client = await connect();
    try {
      const refused = await client.readResource({ uri: 'ui://content/nope' }).catch((error: Error) => error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toContain('ui://content/nope');
    } finally {
      await client.close();
    }
  });

  it('gives a 2025-11-25 client the same content and structuredContent as before, with only the _meta.ui keys added', async () => {
    const client = new ClientV1({ name: 'v1-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransportV1(new URL(`${bed.server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${bed.ws.apiKey}` } },
    });
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      const { tools } = await client.listTools();
      for (const tool of tools) {
        const { _meta, ...rest } = tool;
        expect(Object.keys(rest).sort()).toEqual(
          ['annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title'].sort(),
        );
        if (_meta !== undefined) expect(Object.keys(_meta)).toEqual(['ui', 'ui/resourceUri']);
      }
      const created = (await client.callTool({
        name: 'service_create_content',
        arguments: { caption: 'Seen by every host', target_platforms: ['twitter'], status: 'pending_review' },
      })) as any;
      const rest = await call(bed.server, 'GET', `/api/v1/content/${created.structuredContent.id}`, {
        headers: bed.ws.headers,
      });
      expect(created.structuredContent).toEqual(rest.body);
      expect(created.content).toEqual([{ type: 'text', text: JSON.stringify(rest.body) }]);
      expect(Object.keys(created).sort()).toEqual(['_meta', 'content', 'structuredContent']);
      expect(Object.keys(created._meta)).toEqual(['ui']);
      const listed = (await client.callTool({ name: 'service_list_content', arguments: {} })) as any;
      expect(listed.content[0].text).toBe(JSON.stringify(listed.structuredContent));
      expect(Object.keys(listed._meta)).toEqual(['ui']);
      // A tool without a view answers exactly as before: no _meta at all.
      const account = (await client.callTool({ name: 'service_get_account', arguments: {} })) as any;
      expect(account._meta).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('adds _meta.ui only for a client that declares MCP Apps support, when it declares its capabilities', async () => {
    const answers: Record<string, unknown> = {};
    for (const rendersViews of [false, true]) {
      const client = await connect(bed.ws.apiKey, '/mcp', { rendersViews });
      try {
        const created = (await client.callTool({
          name: 'service_create_content',
          arguments: { caption: 'Plain text for plain hosts' },
        })) as any;
        expect(created.content[0].text).toBe(JSON.stringify(created.structuredContent));
        // 2026-07-28 puts the server's identity in every result's _meta; the view's data is `ui`.
        answers[String(rendersViews)] = Object.keys(created._meta ?? {}).sort();
      } finally {
        await client.close();
      }
    }
    expect(answers).toEqual({
      false: ['io.modelcontextprotocol/serverInfo'],
      true: ['io.modelcontextprotocol/serverInfo', 'ui'],
    });
  });

  it("puts the item's per-platform previews, history, time zone and review right into the result's _meta.ui", async () => {
    const client = await connect();
    try {
      const created = (await client.callTool({
        name: 'service_create_content',
        arguments: { caption: 'Two platforms', target_platforms: ['twitter', 'linkedin'], status: 'pending_review' },
      })) as any;
      const ui = created._meta.ui;
      // The policy's verdicts on the item: the views make their buttons from them alone.
      expect(
        ui.allowed_actions[created.structuredContent.id].filter((v: any) => v.allowed).map((v: any) => v.action),
      ).toEqual(['approve_and_publish_now', 'approve_only', 'reject']);
      expect(ui.timezone).toBe(bed.ws.workspace.timezone);
      expect(ui.media_origin).toBe('http://127.0.0.1:3000');
      // The views name platforms by the registry's names, sent in the data (the preview module keeps no copy).
      expect(ui.platform_names).toEqual(PLATFORM_NAMES);
      expect(ui.item.previews[0].problems[0]).toMatchObject({ code: 'account_missing', platform: 'twitter' });
      expect(ui.item.previews.map((preview: any) => preview.platform)).toEqual(['twitter', 'linkedin']);
      expect(ui.item.previews[0]).toMatchObject({ text: 'Two platforms', limit: 280, unit: 'weighted characters' });
      expect(ui.item.history.map((entry: any) => entry.to)).toEqual(['pending_review']);
      // structuredContent is the item: the view reads it from there, not from a copy.
      expect(ui.item.content).toBeUndefined();

      const dryRun = (await client.callTool({
        name: 'service_publish_content',
        arguments: { id: created.structuredContent.id, dry_run: true },
      })) as any;
      expect(dryRun.structuredContent.object).toBe('publish_preview');
      expect(dryRun._meta.ui.item.content.id).toBe(created.structuredContent.id);
      expect(dryRun._meta.ui.item.previews).toHaveLength(2);

      // Each image's alt text comes with the previews, as the view's cards show it.
      const pictured = (await client.callTool({
        name: 'service_create_content',
        arguments: {
          caption: 'Pictured',
          content_type: 'single_image',
          media_urls: ['https://cdn.example.com/coat.jpg'],
          media_alt_text: { 'https://cdn.example.com/coat.jpg': 'A red coat' },
          target_platforms: ['bluesky'],
        },
      })) as any;
      expect(pictured.structuredContent.media_alt_text).toEqual({ 'https://cdn.example.com/coat.jpg': 'A red coat' });
      expect(pictured._meta.ui.item.previews[0].mediaAltText).toEqual(['A red coat']);
    } finally {
      await client.close();
    }
  });

  it('says no review right under /mcp/readonly', async () => {
    const client = await connect(bed.ws.apiKey, '/mcp/readonly');
    try {
      const { tools } = await client.listTools();
      expect(tools.filter((tool) => tool._meta).map((tool) => tool.name)).toEqual([
        'service_list_content',
        'service_get_content',
      ]);
      await call(bed.server, 'POST', '/api/v1/content', {
        headers: bed.ws.headers,
        body: { caption: 'Waiting', status: 'pending_review' },
      });
      const listed = (await client.callTool({ name: 'service_list_content', arguments: {} })) as any;
      const verdicts = Object.values(listed._meta.ui.allowed_actions).flat() as any[];
      expect(verdicts).toHaveLength(7);
      expect(verdicts.some((v) => v.allowed)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it("says no review right for a viewer's grant, even with the write scope, and yes for an approver's", async () => {
    const viewer = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    await call(bed.server, 'POST', '/api/v1/content', {
      headers: bed.ws.headers,
      body: { caption: 'Waiting', status: 'pending_review' },
    });
    const rights: Record<string, string[]> = {};
    for (const [name, person] of Object.entries({ viewer, approver })) {
      const { accessToken } = await issueTestToken(
        bed.runtime,
        bed.ws.workspace.id,
        ['read', 'write'],
        name,
        person.userId,
      );
      const client = await connect(accessToken);
      try {
        const listed = (await client.callTool({ name: 'service_list_content', arguments: {} })) as any;
        rights[name] = (Object.values(listed._meta.ui.allowed_actions).flat() as any[])
          .filter((v) => v.allowed)
          .map((v) => v.action);
      } finally {
        await client.close();
      }
    }
    // Without the publish scope, the approver may approve only or reject, not queue a post.
    expect(rights).toEqual({ viewer: [], approver: ['approve_only', 'reject'] });
  });
});
