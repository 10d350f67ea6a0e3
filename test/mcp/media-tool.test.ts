import { describe, expect, it } from 'vitest';
import { makeMedia, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { connectMcp, useMcpTestbed } from '../helpers/mcp.ts';
import { toolResult } from '../helpers/tool-calls.ts';
import { FIXTURES, png } from '../fixtures/media/files.ts';

/** service_list_media: GET /media-library through the SDK client. */
describe('MCP service_list_media', () => {
  const bed = useMcpTestbed({ media: true });

  const upload = (bytes: Uint8Array, filename: string, w: TestWorkspace = bed.ws) => {
    bed.runtime.clock.advance(1_000);
    return makeMedia(bed.runtime, w.workspace, { bytes, filename });
  };

  it('is listed read-only after service_list_social_accounts, with limit, cursor and asset_type', async () => {
    const { tools } = await bed.client.listTools();
    const tool = tools.find((t) => t.name === 'service_list_media')!;
    expect(tool.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(['asset_type', 'cursor', 'limit']);
    expect((tool.inputSchema.properties as any).asset_type.enum).toEqual(['image', 'video']);
    expect((tool.inputSchema.properties as any).limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(tool.description).toMatch(/media_urls/);
    const names = tools.map((t) => t.name);
    expect(names.indexOf('service_list_media')).toBe(names.indexOf('service_list_social_accounts') + 1);
  });

  it('answers what GET /api/v1/media-library answers, filtered and paged the same way', async () => {
    const image = await upload(png(2, 2), 'a.png');
    const video = await upload(FIXTURES.find((f) => f.mimeType === 'video/webm')!.bytes, 'b.webm');
    const newer = await upload(png(3, 3), 'c.png');
    const rest = await call(bed.server, 'GET', '/api/v1/media-library', { headers: bed.ws.headers });
    const all = await toolResult(bed.client, 'service_list_media');
    expect(all).toEqual(rest.body);
    expect(all.data.map((a: any) => a.id)).toEqual([newer.id, video.id, image.id]);
    expect((await toolResult(bed.client, 'service_list_media', { asset_type: 'video' })).data).toEqual([video]);
    const page1 = await toolResult(bed.client, 'service_list_media', { asset_type: 'image', limit: 1 });
    expect(page1).toMatchObject({ data: [newer], has_more: true });
    const page2 = await toolResult(bed.client, 'service_list_media', {
      asset_type: 'image',
      limit: 1,
      cursor: page1.next_cursor,
    });
    expect(page2).toEqual({ object: 'list', data: [image], has_more: false, next_cursor: null });
  });

  it("lists only the caller's workspace", async () => {
    const other = await makeWorkspace(bed.runtime);
    const mine = await upload(png(1, 1), 'mine.png');
    const theirs = await upload(png(1, 1), 'theirs.png', other);
    expect((await toolResult(bed.client, 'service_list_media')).data.map((a: any) => a.id)).toEqual([mine.id]);
    const otherClient = await connectMcp(bed.runtime, other.apiKey);
    try {
      expect((await toolResult(otherClient, 'service_list_media')).data.map((a: any) => a.id)).toEqual([theirs.id]);
    } finally {
      await otherClient.close();
    }
  });
});
