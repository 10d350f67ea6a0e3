import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { campaigns, content, usagePeriods } from '../../db/schema/index.ts';
import { usagePeriod } from '../../src/core/accounts/usage.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, eventsOf, expectError, expectFieldError } from '../helpers/rest-expect.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const RESOURCE_KEYS = [
  'campaign_length_days',
  'content_mix',
  'created_at',
  'description',
  'generated_posts',
  'id',
  'name',
  'object',
  'posts_per_day',
  'start_date',
  'status',
  'total_posts',
  'updated_at',
];

/** The campaign resource, its status values and endpoints, and the launch that starts generation. */
describe('REST campaigns', () => {
  const bed = useRestTestbed({ env: baseEnv });

  const send = (method: string, path: string, body?: unknown, headers = bed.ws.headers) =>
    call(bed.server, method, path, { headers, body });
  const create = async (body: Record<string, unknown> = { name: 'Spring launch' }, headers = bed.ws.headers) => {
    const res = await send('POST', '/api/v1/campaigns', body, headers);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const patch = (id: string, body: Record<string, unknown>) => send('PATCH', `/api/v1/campaigns/${id}`, body);
  const launch = (id: string, headers = bed.ws.headers) =>
    send('POST', `/api/v1/campaigns/${id}/launch`, undefined, headers);

  describe('create', () => {
    it('creates a draft with the defaults: 3 a day for 7 days from the next UTC midnight, an empty mix', async () => {
      bed.runtime.clock.set('2026-03-10T22:45:00.000Z');
      const res = await send('POST', '/api/v1/campaigns', { name: 'Spring launch' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(RESOURCE_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        object: 'campaign',
        name: 'Spring launch',
        description: null,
        status: 'draft',
        content_mix: {},
        posts_per_day: 3,
        campaign_length_days: 7,
        start_date: '2026-03-11T00:00:00.000Z',
        total_posts: 21,
        generated_posts: 0,
        created_at: '2026-03-10T22:45:00.000Z',
        updated_at: '2026-03-10T22:45:00.000Z',
      });
      expect((await send('GET', `/api/v1/campaigns/${res.body.id}`)).body).toEqual(res.body);
    });

    it('takes every field, and computes total_posts as posts_per_day x campaign_length_days', async () => {
      const body = {
        name: 'Summer',
        description: 'Sun and sea',
        posts_per_day: 50,
        campaign_length_days: 365,
        start_date: '2026-06-01T08:00:00+02:00',
        content_mix: {
          ugc: 1,
          slideshow: 0.5,
          talkingHead: 2,
          videoHookDemo: 0,
          greenScreen: 1,
          videoHook: 3,
          carousel: 1,
        },
      };
      const created = await create(body);
      expect(created).toMatchObject({
        ...body,
        start_date: '2026-06-01T06:00:00.000Z',
        total_posts: 18_250,
        status: 'draft',
      });
    });

    it('keeps every field on both sides of its limit', async () => {
      for (const [field, ok, bad] of [
        ['name', 'n'.repeat(160), 'n'.repeat(161)],
        ['name', 'n', ''],
        ['description', 'd'.repeat(1000), 'd'.repeat(1001)],
        ['posts_per_day', 1, 0],
        ['posts_per_day', 50, 51],
        ['campaign_length_days', 1, 0],
        ['campaign_length_days', 365, 366],
      ] as const) {
        await create({ name: 'Edge', [field]: ok });
        expectFieldError(await send('POST', '/api/v1/campaigns', { name: 'Edge', [field]: bad }), field);
      }
    });

    it('refuses a missing name, a fractional count, a naive start_date and a status', async () => {
      expectFieldError(await send('POST', '/api/v1/campaigns', {}), 'name');
      expectFieldError(await send('POST', '/api/v1/campaigns', { name: 'x', posts_per_day: 2.5 }), 'posts_per_day');
      expectFieldError(
        await send('POST', '/api/v1/campaigns', { name: 'x', start_date: '2026-06-01T08:00:00' }),
        'start_date',
      );
      expectFieldError(
        await send('POST', '/api/v1/campaigns', { name: 'x', campaign_length_days: '7' }),
        'campaign_length_days',
      );
      expect(await bed.runtime.db.select().from(campaigns).all()).toEqual([]);
    });

    it('content_mix: engine names only, non-negative weights, not all zero; {} is allowed', async () => {
      expect((await create({ name: 'x', content_mix: {} })).content_mix).toEqual({});
      expect((await create({ name: 'x', content_mix: { carousel: 0, ugc: 3 } })).content_mix).toEqual({
        carousel: 0,
        ugc: 3,
      });
      for (const mix of [{ reel: 1 }, { talking_head: 1 }, { ugc: -1 }, { ugc: 0, carousel: 0 }, { ugc: '1' }, [1]]) {
        expectFieldError(await send('POST', '/api/v1/campaigns', { name: 'x', content_mix: mix }), 'content_mix');
      }
    });
  });

  describe('list and read', () => {
    it('lists newest first in pages, with no status filter', async () => {
      const made = [];
      for (let i = 0; i < 5; i++) {
        made.push(await create({ name: `Campaign ${i}` }));
        bed.runtime.clock.advance(1000);
      }
      await patch(made[1].id, { status: 'archived' });
      const first = await send('GET', '/api/v1/campaigns?limit=2&status=draft');
      expect(first.status).toBe(200);
      expect(first.body.data.map((c: any) => c.name)).toEqual(['Campaign 4', 'Campaign 3']);
      expect(first.body.has_more).toBe(true);
      const rest = await send('GET', `/api/v1/campaigns?limit=10&cursor=${first.body.next_cursor}`);
      expect(rest.body.data.map((c: any) => c.name)).toEqual(['Campaign 2', 'Campaign 1', 'Campaign 0']);
      expect(rest.body.data[1].status).toBe('archived');
      expect(rest.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    });

    it('answers 404 for an unknown id', async () => {
      expectError(await send('GET', '/api/v1/campaigns/00000000-0000-7000-8000-000000000000'), 404, 'not_found');
    });
  });

  describe('update', () => {
    it('changes only what is sent and never recomputes total_posts', async () => {
      const created = await create({ name: 'Plan', posts_per_day: 2, campaign_length_days: 10 });
      bed.runtime.clock.advance(60_000);
      const res = await patch(created.id, { posts_per_day: 5, campaign_length_days: 30, description: 'Longer' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...created,
        posts_per_day: 5,
        campaign_length_days: 30,
        description: 'Longer',
        total_posts: 20,
        updated_at: bed.runtime.clock.now().toISOString(),
      });
      expect((await patch(created.id, { description: null })).body.description).toBeNull();
    });

    it('sets any status directly, without the launch check', async () => {
      const created = await create();
      for (const status of ['active', 'completed', 'paused', 'archived', 'draft', 'active']) {
        const res = await patch(created.id, { status });
        expect(res.status).toBe(200);
        expect(res.body.status).toBe(status);
      }
      expectFieldError(await patch(created.id, { status: 'launched' }), 'status');
      expect((await eventsOf(bed.runtime, bed.ws.workspace.id)).filter((e) => e.type.startsWith('campaign.'))).toEqual(
        [],
      );
    });

    it('a body with no recognised field answers 400 no_updates; limits hold as on create', async () => {
      const created = await create();
      expectError(await patch(created.id, {}), 400, 'no_updates');
      expectError(await patch(created.id, { total_posts: 99, generated_posts: 5 }), 400, 'no_updates');
      expectFieldError(await patch(created.id, { posts_per_day: 51 }), 'posts_per_day');
      expectFieldError(await patch(created.id, { content_mix: { reel: 1 } }), 'content_mix');
      expect((await send('GET', `/api/v1/campaigns/${created.id}`)).body).toEqual(created);
    });
  });

  describe('launch', () => {
    it('moves a draft to active with start_date now, answers 202, and emits campaign.launched with the full campaign', async () => {
      const created = await create({ name: 'Go', start_date: '2027-01-01T00:00:00Z' });
      bed.runtime.clock.advance(5 * 60_000);
      const res = await launch(created.id);
      expect(res.status).toBe(202);
      const now = bed.runtime.clock.now().toISOString();
      expect(res.body).toEqual({ ...created, status: 'active', start_date: now, updated_at: now });
      expect(res.body).not.toHaveProperty('scheduled_posts');
      expect(res.body).not.toHaveProperty('skipped_posts');
      const launched = (await eventsOf(bed.runtime, bed.ws.workspace.id)).filter((e) => e.type === 'campaign.launched');
      expect(launched.map((e) => e.data)).toEqual([{ campaign: res.body }]);
    });

    it('launches from paused too; from active, completed or archived it answers 409 invalid_state and changes nothing', async () => {
      const created = await create();
      expect((await launch(created.id)).status).toBe(202);
      const launchedTwice = await launch(created.id);
      expectError(launchedTwice, 409, 'invalid_state');
      await patch(created.id, { status: 'paused' });
      expect((await launch(created.id)).status).toBe(202);
      for (const status of ['completed', 'archived']) {
        await patch(created.id, { status });
        const before = (await send('GET', `/api/v1/campaigns/${created.id}`)).body;
        expectError(await launch(created.id), 409, 'invalid_state');
        expect((await send('GET', `/api/v1/campaigns/${created.id}`)).body).toEqual(before);
      }
      expect(
        (await eventsOf(bed.runtime, bed.ws.workspace.id)).filter((e) => e.type === 'campaign.launched'),
      ).toHaveLength(2);
    });

    it('with no AI credit left this month answers 403 quota_exceeded and stays a draft', async () => {
      const created = await create();
      const credits = bed.ws.workspace.features.monthly_ai_credits;
      await bed.runtime.db
        .insert(usagePeriods)
        .values({
          workspaceId: bed.ws.workspace.id,
          periodStart: usagePeriod(bed.runtime.clock.now()).start,
          aiCreditsUsed: credits,
        })
        .run();
      expectError(await launch(created.id), 403, 'quota_exceeded');
      expect((await send('GET', `/api/v1/campaigns/${created.id}`)).body.status).toBe('draft');
      expect((await eventsOf(bed.runtime, bed.ws.workspace.id)).filter((e) => e.type === 'campaign.launched')).toEqual(
        [],
      );

      // Credits come back with the next calendar month.
      bed.runtime.clock.set(usagePeriod(bed.runtime.clock.now()).end.toISOString());
      expect((await launch(created.id)).status).toBe(202);
    });
  });

  describe('delete', () => {
    it('removes the row, clears campaign_id on its items (which stay), and fires nothing', async () => {
      const created = await create();
      const other = await create({ name: 'Other' });
      const item = await makeContent(bed.runtime, bed.ws.workspace);
      const kept = await makeContent(bed.runtime, bed.ws.workspace);
      await bed.runtime.db.update(content).set({ campaignId: created.id }).where(eq(content.id, item.id)).run();
      await bed.runtime.db.update(content).set({ campaignId: other.id }).where(eq(content.id, kept.id)).run();
      const eventsBefore = (await eventsOf(bed.runtime, bed.ws.workspace.id)).length;

      const res = await send('DELETE', `/api/v1/campaigns/${created.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: created.id, object: 'campaign', deleted: true });
      expectError(await send('GET', `/api/v1/campaigns/${created.id}`), 404, 'not_found');
      expect((await send('GET', `/api/v1/content/${item.id}`)).body).toMatchObject({
        id: item.id,
        campaign_id: null,
        status: 'draft',
      });
      expect((await send('GET', `/api/v1/content/${kept.id}`)).body.campaign_id).toBe(other.id);
      expect(await eventsOf(bed.runtime, bed.ws.workspace.id)).toHaveLength(eventsBefore);
      expectError(await send('DELETE', `/api/v1/campaigns/${created.id}`), 404, 'not_found');
    });
  });

  describe('workspace isolation', () => {
    it("another workspace's campaign answers 404 to every route and is never listed", async () => {
      const mine = await create({ name: 'Mine' });
      const stranger = await makeWorkspace(bed.runtime);
      const as = (method: string, path: string, body?: unknown) => send(method, path, body, stranger.headers);
      expectError(await as('GET', `/api/v1/campaigns/${mine.id}`), 404, 'not_found');
      expectError(await as('PATCH', `/api/v1/campaigns/${mine.id}`, { name: 'Taken' }), 404, 'not_found');
      expectError(await as('POST', `/api/v1/campaigns/${mine.id}/launch`), 404, 'not_found');
      expectError(await as('DELETE', `/api/v1/campaigns/${mine.id}`), 404, 'not_found');
      expect((await as('GET', '/api/v1/campaigns')).body.data).toEqual([]);
      expect((await send('GET', `/api/v1/campaigns/${mine.id}`)).body).toEqual(mine);
    });
  });
});
