import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { templates } from '../../db/schema/index.ts';
import seedFile from '../../db/seed/templates.json' with { type: 'json' };
import { ServiceError } from '../../src/core/errors.ts';
import { textViolations } from '../../src/core/platforms/rules.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { importTemplates, seedTemplates } from '../../src/core/templates/seed.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, expectError, expectFieldError } from '../helpers/rest-expect.ts';
import { openTestDatabase } from '../helpers/runtime.ts';

const PLATFORMS = ['twitter', 'linkedin', 'instagram', 'facebook', 'tiktok'];
const RESOURCE_KEYS = [
  'content_type',
  'created_at',
  'description',
  'engagement',
  'example_caption',
  'id',
  'name',
  'niches',
  'object',
  'source_platform',
  'structure',
];

interface SeedEntry {
  id: string;
  name: string;
  source_platform: string;
  content_type: string;
  example_caption: string;
  engagement: {
    views: number;
    likes: number;
    comments: number;
    shares: number;
    saves: number;
    engagement_rate: number;
  };
  niches: string[];
  created_at: string;
}
const SEED = seedFile as SeedEntry[];
const countTemplates = async (db: Db): Promise<number> =>
  Number((await db.get<{ n: number }>(sql`select count(*) as n from templates`))!.n);

/** The seed in the order the API must give it: newest first by (created_at, id). */
const newestFirst = (entries: SeedEntry[]) =>
  [...entries].sort((a, b) => b.created_at.localeCompare(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
const idsOf = (entries: { id: string }[]) => entries.map((e) => e.id);

/** An entry that is not in the seed, valid for import. */
const extraEntry = (n: number, overrides: Record<string, unknown> = {}) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: `Imported template ${n}`,
  description: 'An imported entry for tests.',
  source_platform: 'linkedin',
  content_type: 'text_only',
  structure: { hook: 'A hook.', body: 'A body.', call_to_action: 'A call to action.' },
  example_caption: 'A caption that fits every platform.',
  engagement: { views: 1000, likes: 50, comments: 5, shares: 3, saves: 2, engagement_rate: 0.06 },
  niches: ['saas'],
  created_at: '2026-02-01T00:00:00Z',
  ...overrides,
});

describe('templates seed file (db/seed/templates.json)', () => {
  it('holds at least 40 entries over all five platforms, at least five content types and eight niches, each id once', () => {
    expect(SEED.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SEED.map((e) => e.source_platform))).toEqual(new Set(PLATFORMS));
    expect(new Set(SEED.map((e) => e.content_type)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(SEED.flatMap((e) => e.niches)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(idsOf(SEED)).size).toBe(SEED.length);
    for (const platform of PLATFORMS)
      expect(SEED.filter((e) => e.source_platform === platform).length, platform).toBeGreaterThanOrEqual(5);
  });

  it('gives engagement_rate as (likes + comments + shares + saves) / views rounded to 4 decimals', () => {
    for (const { engagement: e, name } of SEED) {
      const expected = Math.round(((e.likes + e.comments + e.shares + e.saves) / e.views) * 10_000) / 10_000;
      expect(e.engagement_rate, name).toBe(expected);
      expect(e.views, name).toBeGreaterThan(e.likes);
    }
  });

  it('has example captions that fit their platform (X weighted 280, Instagram 30 hashtags, ...) and distinct created_at spread over time', () => {
    for (const entry of SEED)
      expect(textViolations(entry.source_platform as never, entry.example_caption), entry.name).toEqual([]);
    const times = SEED.map((e) => Date.parse(e.created_at));
    expect(times.every((t) => Number.isFinite(t))).toBe(true);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(180 * 86_400_000);
    expect(new Set(times).size).toBeGreaterThanOrEqual(SEED.length - 1);
  });
});

describe('REST templates', () => {
  const bed = useRestTestbed({ env: baseEnv });

  const get = (query = '', headers: Record<string, string> = bed.ws.headers) =>
    call(bed.server, 'GET', `/api/v1/templates${query}`, { headers });
  const list = async (query = '', headers: Record<string, string> = bed.ws.headers) => {
    const res = await get(query, headers);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  /** Follows next_cursor to the end; every page must be full except the last. */
  const walk = async (query: string, limit: number) => {
    const seen: any[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 50; page++) {
      const body = await list(`?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.data);
      if (!body.has_more) {
        expect(body.next_cursor).toBeNull();
        expect(body.data.length).toBeLessThanOrEqual(limit);
        return seen;
      }
      expect(body.data).toHaveLength(limit);
      expect(typeof body.next_cursor).toBe('string');
      cursor = body.next_cursor;
    }
    throw new Error('pagination did not end');
  };

  it('serves the whole seed, newest first by (created_at, id), in the exact resource shape', async () => {
    const body = await list('?limit=100');
    expect(Object.keys(body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
    expect(body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(idsOf(body.data)).toEqual(idsOf(newestFirst(SEED)));
    const created = body.data.map((t: any) => t.created_at);
    expect(created).toEqual([...created].sort().reverse());
    for (const template of body.data) {
      expect(Object.keys(template).sort()).toEqual(RESOURCE_KEYS);
      expect(Object.keys(template.structure).sort()).toEqual(['body', 'call_to_action', 'hook']);
      expect(Object.keys(template.engagement).sort()).toEqual([
        'comments',
        'engagement_rate',
        'likes',
        'saves',
        'shares',
        'views',
      ]);
      const e = template.engagement;
      expect(e.engagement_rate).toBe(
        Math.round(((e.likes + e.comments + e.shares + e.saves) / e.views) * 10_000) / 10_000,
      );
      expect(template.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const first = SEED.find((e) => e.id === body.data[0].id)!;
    const { created_at, ...rest } = first;
    expect(body.data[0]).toEqual({ object: 'template', ...rest, created_at: new Date(created_at).toISOString() });
  });

  it('walks every template exactly once with limit 7, across the two entries that share a created_at', async () => {
    const ties = SEED.filter((a) => SEED.some((b) => b !== a && b.created_at === a.created_at));
    expect(ties.length).toBeGreaterThanOrEqual(2);
    const seen = await walk('', 7);
    expect(idsOf(seen)).toEqual(idsOf(newestFirst(SEED)));
    expect(new Set(idsOf(seen)).size).toBe(SEED.length);
  });

  it('filters by source_platform, content_type and niche, each alone, in newest-first order', async () => {
    for (const platform of PLATFORMS) {
      const body = await list(`?limit=100&source_platform=${platform}`);
      expect(idsOf(body.data), platform).toEqual(
        idsOf(newestFirst(SEED.filter((e) => e.source_platform === platform))),
      );
      expect(body.data.length).toBeGreaterThan(0);
    }
    for (const type of new Set(SEED.map((e) => e.content_type))) {
      const body = await list(`?limit=100&content_type=${type}`);
      expect(idsOf(body.data), type).toEqual(idsOf(newestFirst(SEED.filter((e) => e.content_type === type))));
    }
    for (const niche of new Set(SEED.flatMap((e) => e.niches))) {
      const body = await list(`?limit=100&niche=${niche}`);
      expect(idsOf(body.data), niche).toEqual(idsOf(newestFirst(SEED.filter((e) => e.niches.includes(niche)))));
    }
  });

  it('combines filters, and pages under a filter with the same filter on every request', async () => {
    const finance = SEED.filter((e) => e.niches.includes('finance'));
    const combined = await list('?limit=100&source_platform=tiktok&niche=finance');
    const expected = newestFirst(finance.filter((e) => e.source_platform === 'tiktok'));
    expect(expected.length).toBeGreaterThan(0);
    expect(idsOf(combined.data)).toEqual(idsOf(expected));
    const all3 = await list('?limit=100&source_platform=instagram&content_type=carousel&niche=travel');
    expect(idsOf(all3.data)).toEqual(
      idsOf(
        newestFirst(
          SEED.filter(
            (e) => e.source_platform === 'instagram' && e.content_type === 'carousel' && e.niches.includes('travel'),
          ),
        ),
      ),
    );
    expect(all3.data.length).toBeGreaterThan(0);

    expect(finance.length).toBeGreaterThan(4);
    const paged = await walk('&niche=finance', 2);
    expect(idsOf(paged)).toEqual(idsOf(newestFirst(finance)));
  });

  it('matches a niche exactly (case-insensitive); a part of a niche or an unknown one gives an empty list', async () => {
    expect(SEED.some((e) => e.niches.includes('real-estate'))).toBe(true);
    expect(await list('?niche=real')).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    expect((await list('?niche=estate')).data).toEqual([]);
    expect((await list('?niche=underwater-basket-weaving')).data).toEqual([]);
    expect((await list('?niche="fitness"')).data).toEqual([]);
    const upper = await list('?limit=100&niche=FITNESS');
    expect(idsOf(upper.data)).toEqual(idsOf(newestFirst(SEED.filter((e) => e.niches.includes('fitness')))));
  });

  it('refuses an unknown platform or content type with 400 invalid_body naming the field', async () => {
    const platform = await get('?source_platform=myspace');
    expectFieldError(platform, 'source_platform');
    const type = await get('?content_type=podcast');
    expectFieldError(type, 'content_type');
    expectFieldError(await get('?source_platform=Twitter'), 'source_platform');
    expectFieldError(await get(`?niche=${'x'.repeat(101)}`), 'niche');
  });

  it('applies the pagination rules: default 25, clamped to 100, bad values fall back to 25, a bad cursor gives the first page', async () => {
    // 60 more entries, so the library is longer than the largest page.
    await importTemplates(
      bed.runtime.db,
      Array.from({ length: 60 }, (_, i) =>
        extraEntry(i + 1, { created_at: new Date(Date.UTC(2024, 0, 1 + i)).toISOString() }),
      ),
      new Date(),
    );
    expect((await list()).data).toHaveLength(25);
    for (const bad of ['0', '-3', 'abc', '']) expect((await list(`?limit=${bad}`)).data, bad).toHaveLength(25);
    const capped = await list('?limit=1000');
    expect(capped.data).toHaveLength(100);
    expect(capped.has_more).toBe(true);
    expect((await list('?limit=3.9')).data).toHaveLength(3);
    const firstPage = await list('?limit=5');
    for (const cursor of ['not-a-cursor', firstPage.next_cursor.slice(0, -2), 'eyJ4IjoxfQ']) {
      expect(idsOf((await list(`?limit=5&cursor=${cursor}`)).data), cursor).toEqual(idsOf(firstPage.data));
    }
    const all = await walk('', 30);
    expect(all).toHaveLength(SEED.length + 60);
  });

  it('requires an API key, and shows every workspace the same library', async () => {
    expectError(await get('', {}), 401, 'missing_key');
    expectError(
      await get('', { authorization: 'Bearer np_live_000000000000000000000000000000000000' }),
      401,
      'invalid_key',
    );
    const other = await makeWorkspace(bed.runtime);
    const mine = await list('?limit=100');
    const theirs = await list('?limit=100', other.headers);
    expect(theirs).toEqual(mine);
    expect(theirs.data).toHaveLength(SEED.length);
  });

  it('is read-only: only GET is served', async () => {
    const res = await call(bed.server, 'POST', '/api/v1/templates', { headers: bed.ws.headers, body: extraEntry(1) });
    expect(res.status).toBe(405);
    expect(await countTemplates(bed.runtime.db)).toBe(SEED.length);
  });
});

describe('templates seed and import (core)', () => {
  it('seeds at every open without adding anything twice, and keeps a row an import changed', async () => {
    const db = await openTestDatabase();
    const runtime = await openRuntime({ db });
    expect(await countTemplates(runtime.db)).toBe(SEED.length);
    expect(await seedTemplates(db)).toEqual({ inserted: 0, updated: 0 });
    await openRuntime({ db });
    expect(await countTemplates(db)).toBe(SEED.length);

    const changed = { ...SEED[0]!, name: 'Renamed by an operator' };
    expect(await importTemplates(db, [changed, extraEntry(1)], new Date())).toEqual({ inserted: 1, updated: 1 });
    expect(await seedTemplates(db)).toEqual({ inserted: 0, updated: 0 });
    expect((await db.select().from(templates).all()).find((t) => t.id === SEED[0]!.id)!.name).toBe(
      'Renamed by an operator',
    );

    // A seed row that went missing comes back at the next open.
    await db.run(sql`delete from templates where id = ${SEED[1]!.id}`);
    expect(await seedTemplates(db)).toEqual({ inserted: 1, updated: 0 });
    expect(await countTemplates(db)).toBe(SEED.length + 1);
  });

  it('imports by id: a second run of the same file inserts nothing; created_at defaults to now; engagement_rate is computed', async () => {
    const db = (await openRuntime({ db: await openTestDatabase() })).db;
    const now = new Date('2026-03-01T10:00:00.000Z');
    const { created_at: _omit, ...undated } = extraEntry(7);
    const { engagement_rate: _rate, ...counts } = undated.engagement;
    const entries = [undated, { ...extraEntry(8), engagement: counts }];
    expect(await importTemplates(db, entries, now)).toEqual({ inserted: 2, updated: 0 });
    expect(await importTemplates(db, entries, now)).toEqual({ inserted: 0, updated: 2 });
    const rows = await db.select().from(templates).all();
    expect(rows).toHaveLength(SEED.length + 2);
    const seven = rows.find((r) => r.id === extraEntry(7).id)!;
    expect(seven.createdAt.toISOString()).toBe(now.toISOString());
    expect(rows.find((r) => r.id === extraEntry(8).id)!.engagement.engagement_rate).toBe(0.06);
  });

  it('validates every entry and writes nothing when one is invalid', async () => {
    const db = (await openRuntime({ db: await openTestDatabase() })).db;
    const refuse = async (entries: unknown, pattern: RegExp) => {
      let error: unknown;
      try {
        await importTemplates(db, entries, new Date());
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).code).toBe('invalid_body');
      expect((error as ServiceError).message).toMatch(pattern);
    };
    const good = extraEntry(1);
    await refuse(
      [good, extraEntry(2, { engagement: { ...good.engagement, engagement_rate: 0.5 } })],
      /1\.engagement\.engagement_rate/,
    );
    await refuse(
      [good, extraEntry(2, { source_platform: 'twitter', example_caption: 'x'.repeat(281) })],
      /1\.example_caption.*280/,
    );
    await refuse([good, extraEntry(2, { source_platform: 'myspace' })], /1\.source_platform/);
    await refuse([good, { ...extraEntry(2), platform: 'twitter' }], /Unrecognized key/);
    await refuse([good, { ...extraEntry(2), id: 'tpl-2' }], /1\.id/);
    await refuse([good, extraEntry(2, { niches: ['Real Estate'] })], /1\.niches/);
    await refuse([good, extraEntry(2, { niches: [] })], /1\.niches/);
    await refuse([good, extraEntry(1, { name: 'Same id' })], /appears more than once/);
    await refuse([good, extraEntry(2, { created_at: '2026-01-01T00:00:00' })], /1\.created_at/);
    await refuse([], /no templates/);
    await refuse({ templates: [good] }, /expected array/i);
    expect(await countTemplates(db)).toBe(SEED.length);
  });
});
