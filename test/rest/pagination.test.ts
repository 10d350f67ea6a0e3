import { describe, expect, it } from 'vitest';
import type { ContentResource } from '../../src/core/content/serialize.ts';
import { makeContent } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, forceStatus } from '../helpers/rest-expect.ts';

/** Newest first by created_at, ties broken by id, both descending: the order the spec's lists promise. */
const newestFirst = (items: ContentResource[]) =>
  [...items].sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
  );

/** Pagination over REST: limit, the opaque (created_at, id) cursor, bad cursors, filters. */
describe('REST content pagination', () => {
  const bed = useRestTestbed({ env: { ...baseEnv, RATE_LIMIT_READ: '100000', RATE_LIMIT_WRITE: '100000' } });

  const list = (query = '') => call(bed.server, 'GET', `/api/v1/content${query}`, { headers: bed.ws.headers });

  /** Follows next_cursor to the end, checking the envelope of every page. */
  async function walk(params: Record<string, string>): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    for (;;) {
      const query = new URLSearchParams({ ...params, ...(cursor ? { cursor } : {}) });
      const res = await list(`?${query}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
      expect(res.body.object).toBe('list');
      pages += 1;
      ids.push(...res.body.data.map((c: ContentResource) => c.id));
      if (!res.body.has_more) {
        expect(res.body.next_cursor).toBeNull();
        return { ids, pages };
      }
      expect(typeof res.body.next_cursor).toBe('string');
      expect(res.body.data.length).toBe(Number(params.limit ?? 25));
      cursor = res.body.next_cursor;
      expect(pages).toBeLessThan(1000);
    }
  }

  /** 250 items in five bursts of 50 that share one created_at each. */
  async function seed250(): Promise<ContentResource[]> {
    const items: ContentResource[] = [];
    for (let burst = 0; burst < 5; burst += 1) {
      for (let i = 0; i < 50; i += 1) {
        items.push(
          await makeContent(bed.runtime, bed.ws.workspace, {
            caption: `b${burst} i${i}`,
            content_type: i % 2 ? 'reel' : 'text_only',
          }),
        );
      }
      bed.runtime.clock.advance(1000);
    }
    return items;
  }

  it.each([7, 100, 50])('walks 250 items with limit %i: each id once, newest first', async (limit) => {
    const items = await seed250();
    expect(new Set(items.map((i) => i.created_at)).size).toBe(5);
    const { ids, pages } = await walk({ limit: String(limit) });
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
    expect(ids).toEqual(newestFirst(items).map((i) => i.id));
    expect(pages).toBe(Math.ceil(250 / limit));
  });

  it('a last page that is exactly full answers has_more false and no cursor', async () => {
    for (let i = 0; i < 14; i += 1) await makeContent(bed.runtime, bed.ws.workspace);
    const first = await list('?limit=7');
    expect(first.body).toMatchObject({ has_more: true });
    const second = await list(`?limit=7&cursor=${first.body.next_cursor}`);
    expect(second.body.data).toHaveLength(7);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('items created during a walk do not disturb the pages still to come', async () => {
    const items = await seed250();
    const first = await list('?limit=100');
    for (let i = 0; i < 10; i += 1) await makeContent(bed.runtime, bed.ws.workspace, { caption: `late ${i}` });
    const ids: string[] = first.body.data.map((c: ContentResource) => c.id);
    let cursor: string | null = first.body.next_cursor;
    while (cursor) {
      const page = await list(`?limit=100&cursor=${cursor}`);
      ids.push(...page.body.data.map((c: ContentResource) => c.id));
      cursor = page.body.next_cursor;
    }
    expect(ids).toEqual(newestFirst(items).map((i) => i.id));
  });

  describe('filters, passed on every request of a walk', () => {
    it('status', async () => {
      const items = await seed250();
      const approved = items.filter((_, i) => i % 3 === 0);
      for (const item of approved) {
        expect(
          (
            await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
              headers: bed.ws.headers,
              body: { status: 'approved' },
            })
          ).status,
        ).toBe(200);
      }
      const { ids } = await walk({ limit: '7', status: 'approved' });
      expect(ids).toEqual(newestFirst(approved).map((i) => i.id));
    });

    it('content_type', async () => {
      const items = await seed250();
      const { ids } = await walk({ limit: '9', content_type: 'reel' });
      expect(ids).toEqual(newestFirst(items.filter((i) => i.content_type === 'reel')).map((i) => i.id));
    });

    it('status and content_type together', async () => {
      const items = await seed250();
      const archived = items.filter((_, i) => i % 5 === 0);
      for (const item of archived) await forceStatus(bed.runtime, item.id, 'archived');
      const { ids } = await walk({ limit: '4', status: 'archived', content_type: 'text_only' });
      expect(ids).toEqual(newestFirst(archived.filter((i) => i.content_type === 'text_only')).map((i) => i.id));
    });

    it('archived items are left out unless asked for', async () => {
      const items = await seed250();
      const archived = new Set(items.filter((_, i) => i % 4 === 0).map((i) => i.id));
      for (const id of archived) await forceStatus(bed.runtime, id, 'archived');
      const { ids } = await walk({ limit: '7' });
      expect(ids).toEqual(newestFirst(items.filter((i) => !archived.has(i.id))).map((i) => i.id));
    });
  });

  describe('cursor', () => {
    it.each([
      ['not base64 at all', '!!!***'],
      ['random text', 'hello-world'],
      ['a non-date timestamp', Buffer.from('yesterday:abc').toString('base64url')],
      ['a JSON cursor', Buffer.from(JSON.stringify({ created_at: '2026-03-10T12:00:00Z' })).toString('base64url')],
      ['a plain ISO date', '2026-03-10T12:00:00Z'],
      ['an overlong string', 'A'.repeat(5000)],
    ])('%s is dropped: the first page, no error', async (_label, cursor) => {
      const items = await seed250();
      const res = await list(`?limit=10&cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(200);
      expect(res.body.data.map((c: ContentResource) => c.id)).toEqual(
        newestFirst(items)
          .slice(0, 10)
          .map((i) => i.id),
      );
    });

    it('a truncated cursor is dropped: the first page, no error', async () => {
      const items = await seed250();
      const firstPage = newestFirst(items)
        .slice(0, 10)
        .map((i) => i.id);
      const page = await list('?limit=10');
      const cursor: string = page.body.next_cursor;
      for (const cut of [1, 4, 8, cursor.length - 1]) {
        const res = await list(`?limit=10&cursor=${encodeURIComponent(cursor.slice(0, -cut))}`);
        expect(res.status, `cut ${cut}`).toBe(200);
        expect(
          res.body.data.map((c: ContentResource) => c.id),
          `cursor cut by ${cut} characters`,
        ).toEqual(firstPage);
      }
    });

    it('an empty cursor is the first page', async () => {
      const items = await seed250();
      const res = await list('?limit=3&cursor=');
      expect(res.body.data.map((c: ContentResource) => c.id)).toEqual(
        newestFirst(items)
          .slice(0, 3)
          .map((i) => i.id),
      );
    });

    it('a cursor keeps working later: cursors do not expire', async () => {
      await seed250();
      const page = await list('?limit=10');
      bed.runtime.clock.advance(90 * 24 * 60 * 60 * 1000);
      const next = await list(`?limit=10&cursor=${page.body.next_cursor}`);
      expect(next.status).toBe(200);
      expect(next.body.data).toHaveLength(10);
      expect(next.body.data[0].id).not.toBe(page.body.data[0].id);
    });
  });

  describe('limit', () => {
    it.each([
      ['', 25],
      ['?limit=abc', 25],
      ['?limit=0', 25],
      ['?limit=-5', 25],
      ['?limit=', 25],
      ['?limit=1', 1],
      ['?limit=100', 100],
      ['?limit=101', 100],
      ['?limit=500', 100],
      ['?limit=7.9', 7],
    ])('%s gives pages of %i', async (query, size) => {
      for (let i = 0; i < 120; i += 1) await makeContent(bed.runtime, bed.ws.workspace);
      const res = await list(query);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(size);
      expect(res.body.has_more).toBe(true);
    });
  });
});
