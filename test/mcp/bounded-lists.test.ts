import { describe, expect, it } from 'vitest';
import { inOrder, makeContent } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { useMcpTestbed } from '../helpers/mcp.ts';

/** A 4,000-character caption, different for each item. */
const captionFor = (i: number) => `Post ${i}: `.padEnd(4000, 'abcdefghij ');

describe('MCP list answers stay under 100,000 characters', () => {
  const bed = useMcpTestbed();

  it('cuts a page of long captions short and continues exactly there through next_cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 100; i += 1) {
      ids.push((await makeContent(bed.runtime, bed.ws.workspace, { caption: captionFor(i) })).id);
      // Pairs share a created_at: the keyset cursor (created_at, id) must neither skip nor repeat either.
      if (i % 2 === 1) bed.runtime.clock.advance(1000);
    }

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const result = await bed.client.callTool({
        name: 'service_list_content',
        arguments: { limit: 100, ...(cursor ? { cursor } : {}) },
      });
      expect(result.isError ?? false).toBe(false);
      const text = (result.content as Array<{ text: string }>)[0].text;
      expect(text.length).toBeLessThan(100_000);
      const page = JSON.parse(text);
      expect(page.data.length).toBeGreaterThan(0);
      seen.push(...page.data.map((item: { id: string }) => item.id));
      pages += 1;
      if (!page.has_more) {
        expect(page.next_cursor).toBeNull();
        break;
      }
      cursor = page.next_cursor;
      expect(pages).toBeLessThan(100);
    }
    // A first page of 100 such items would be over 400,000 characters.
    expect(pages).toBeGreaterThan(4);
    expect(seen).toHaveLength(100);
    expect(new Set(seen).size).toBe(100);
    expect([...seen].sort()).toEqual([...ids].sort());

    // REST keeps the page its limit asks for (see docs/decisions.md).
    const rest = await call(bed.server, 'GET', '/api/v1/content?limit=100', { headers: bed.ws.headers });
    expect(rest.status).toBe(200);
    expect(rest.body.data).toHaveLength(100);
    expect(rest.body.has_more).toBe(false);
  });
});

describe('MCP answers that are not lists', () => {
  const bed = useMcpTestbed();

  it('keep a text under 100,000 characters for an item stored with extreme values, whole in structuredContent', async () => {
    // Every field at or near its limit, and 20 media URLs of 4,000 characters on each of five platforms.
    const urls = Array.from({ length: 20 }, (_, i) => `https://cdn.example.com/${i}/`.padEnd(4000, 'x'));
    const override = {
      caption: captionFor(1),
      hashtags: Array.from({ length: 50 }, (_, i) => `tag${i}`),
      media_urls: urls,
    };
    const created = await call(bed.server, 'POST', '/api/v1/content', {
      headers: bed.ws.headers,
      body: {
        caption: captionFor(0),
        media_urls: urls,
        platform_specific: Object.fromEntries(
          ['twitter', 'linkedin', 'instagram', 'facebook', 'tiktok'].map((platform) => [platform, override]),
        ),
      },
    });
    expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201);
    expect(JSON.stringify(created.body).length).toBeGreaterThan(100_000);

    // Listed first, so the SDK client checks structuredContent against the tool's outputSchema.
    await bed.client.listTools();
    const result = await bed.client.callTool({ name: 'service_get_content', arguments: { id: created.body.id } });
    expect(result.isError ?? false).toBe(false);
    const text = (result.content as Array<{ text: string }>)[0].text;
    expect(text.length).toBeLessThan(100_000);
    expect(JSON.parse(text).notice).toMatch(/structuredContent holds it whole/);
    expect(result.structuredContent).toEqual(created.body);

    // Listed among ordinary items, it gets a page of its own whose text keeps the cursor and the
    // item's id, so a client reading only the text still pages past it to every other item.
    // One second apart, so the newest-first order is known.
    const itemAt = async (offsetMs: number) => {
      bed.runtime.clock.advance(offsetMs);
      return (await makeContent(bed.runtime, bed.ws.workspace, { caption: captionFor(2) })).id;
    };
    const newer = await inOrder([1000, 1000, 1000], itemAt);
    const older = await inOrder([-5000, 1000], itemAt);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages += 1) {
      const listed = await bed.client.callTool({
        name: 'service_list_content',
        arguments: { limit: 100, ...(cursor ? { cursor } : {}) },
      });
      const pageText = (listed.content as Array<{ text: string }>)[0].text;
      expect(pageText.length).toBeLessThan(100_000);
      const page = JSON.parse(pageText);
      for (const item of page.data) {
        seen.push(item.id);
        if (item.id === created.body.id) expect(item.omitted).toMatch(/structuredContent holds it whole/);
      }
      if (!page.has_more) break;
      cursor = page.next_cursor;
    }
    expect(seen).toEqual([...newer.reverse(), created.body.id, ...older.reverse()]);
  });
});
