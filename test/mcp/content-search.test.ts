import { describe, expect, it } from 'vitest';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { useMcpTestbed } from '../helpers/mcp.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** service_list_content's q: the caption search REST's GET /content answers, through the same list. */
describe('MCP service_list_content: q', () => {
  const bed = useMcpTestbed({ env: baseEnv });
  const list = (args: Record<string, unknown>) => toolResult(bed.client, 'service_list_content', args);
  const captionsOf = (page: { data: Array<{ caption: string }> }) => page.data.map((item) => item.caption).sort();

  it('finds captions whatever their case, and answers what REST answers', async () => {
    const { workspace } = bed.ws;
    for (const caption of ['Spring SALE', 'spring notes', 'Winter', 'Ünïcode ÜBER']) {
      await makeContent(bed.runtime, workspace, { caption });
    }
    const page = await list({ q: 'SPRING' });
    expect(captionsOf(page)).toEqual(['Spring SALE', 'spring notes']);
    expect(page).toEqual((await call(bed.server, 'GET', '/api/v1/content?q=SPRING', { headers: bed.ws.headers })).body);
    expect(captionsOf(await list({ q: 'über' }))).toEqual(['Ünïcode ÜBER']);
  });

  it('answers an empty page when nothing matches, and takes % and _ literally', async () => {
    await makeContent(bed.runtime, bed.ws.workspace, { caption: '100% organic' });
    await makeContent(bed.runtime, bed.ws.workspace, { caption: '100 organic' });
    expect(await list({ q: 'zebra' })).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    expect(captionsOf(await list({ q: '0%' }))).toEqual(['100% organic']);
    expect(await list({ q: '_' })).toMatchObject({ data: [] });
  });

  it('combines with status and content_type', async () => {
    const { workspace } = bed.ws;
    await makeContent(bed.runtime, workspace, {
      caption: 'Launch A',
      content_type: 'text_only',
      status: 'pending_review',
    });
    await makeContent(bed.runtime, workspace, {
      caption: 'Launch B',
      content_type: 'single_image',
      status: 'pending_review',
    });
    await makeContent(bed.runtime, workspace, { caption: 'Launch C', content_type: 'text_only' });
    expect(captionsOf(await list({ q: 'launch', status: 'pending_review', content_type: 'text_only' }))).toEqual([
      'Launch A',
    ]);
  });

  it("never finds another workspace's items", async () => {
    const other = await makeWorkspace(bed.runtime);
    await makeContent(bed.runtime, other.workspace, { caption: 'Their launch' });
    expect((await list({ q: 'their' })).data).toEqual([]);
  });

  it('refuses a search it cannot take with invalid_body', async () => {
    const error = await toolError(bed.client, 'service_list_content', { q: 'x'.repeat(201) }, 'invalid_body');
    expect(error.details.fieldErrors.q).toBeInstanceOf(Array);
    await toolError(bed.client, 'service_list_content', { q: 42 }, 'invalid_body');
  });

  it("describes q in the tool's input schema and description", async () => {
    const { tools } = await bed.client.listTools();
    const tool = tools.find((t) => t.name === 'service_list_content')!;
    const q = (tool.inputSchema.properties as Record<string, { type: string; description: string }>).q;
    expect(q.type).toBe('string');
    expect(q.description).toMatch(/caption/i);
    expect(q.description).toMatch(/case/i);
    expect(tool.description).toMatch(/\bq\b/);
  });
});
