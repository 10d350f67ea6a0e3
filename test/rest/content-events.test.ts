import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, contentRow, eventsOf, expectError, forceStatus } from '../helpers/rest-expect.ts';
import { TEST_ENGINE } from '../helpers/runtime.ts';

/**
 * Each content transition over REST and the outbox
 * rows it writes (db/schema/events.ts), in the same transaction as the change.
 */
describe('REST content: transitions and their events', () => {
  const bed = useRestTestbed({ env: baseEnv });

  const send = (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });
  /** Events written since `from` rows were there. */
  const newEvents = async (from: number) => (await eventsOf(bed.runtime, bed.ws.workspace.id)).slice(from);
  const eventCount = async () => (await eventsOf(bed.runtime, bed.ws.workspace.id)).length;

  it('create writes one content.created with the full resource', async () => {
    const res = await send('POST', '/api/v1/content', {
      caption: 'New',
      target_platforms: ['twitter'],
      hashtags: ['#a'],
    });
    expect(res.status).toBe(201);
    const rows = await eventsOf(bed.runtime, bed.ws.workspace.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: 'content.created',
      workspaceId: bed.ws.workspace.id,
      data: { content: res.body },
    });
    expect(Object.keys(rows[0].data)).toEqual(['content']);
    expect(rows[0].id).toMatch(/^evt_/);
    expect(rows[0].createdAt.toISOString()).toBe(bed.runtime.clock.now().toISOString());
  });

  it('PATCH writes content.updated with the full updated resource, and nothing else', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace);
    const from = await eventCount();
    bed.runtime.clock.advance(1000);
    const res = await send('PATCH', `/api/v1/content/${item.id}`, { caption: 'Changed', status: 'pending_review' });
    expect(res.status).toBe(200);
    const rows = await newEvents(from);
    expect(rows.map((e) => e.type)).toEqual(['content.updated']);
    expect(rows[0].data).toEqual({ content: res.body });
  });

  it.each(['draft', 'rejected', 'scheduled'])('PATCH to %s writes no approved event', async (status) => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { scheduled_for: '2026-04-01T00:00:00Z' });
    const from = await eventCount();
    expect((await send('PATCH', `/api/v1/content/${item.id}`, { status })).status).toBe(200);
    expect((await newEvents(from)).map((e) => e.type)).toEqual(['content.updated']);
  });

  it('PATCH to approved writes content.updated and content.approved, and again when already approved', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace);
    for (let round = 0; round < 2; round += 1) {
      const from = await eventCount();
      const res = await send('PATCH', `/api/v1/content/${item.id}`, { status: 'approved' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('approved');
      const rows = await newEvents(from);
      expect(rows.map((e) => e.type)).toEqual(['content.updated', 'content.approved']);
      expect(rows[0].data).toEqual({ content: res.body });
      expect(rows[1].data).toEqual({ content: { id: item.id, object: 'content', status: 'approved' } });
    }
  });

  it('PATCH of another field on an approved item writes no approved event', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'approved' });
    const from = await eventCount();
    expect((await send('PATCH', `/api/v1/content/${item.id}`, { caption: 'Tweak' })).status).toBe(200);
    expect((await newEvents(from)).map((e) => e.type)).toEqual(['content.updated']);
  });

  describe('publish', () => {
    it('without scheduled_for: 202, approved, publish_queued, one content.approved', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      const from = await eventCount();
      const res = await send('POST', `/api/v1/content/${item.id}/publish`);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({
        id: item.id,
        object: 'content',
        status: 'approved',
        publish_queued: true,
        scheduled_for: null,
      });
      const rows = await newEvents(from);
      expect(rows.map((e) => e.type)).toEqual(['content.approved']);
      expect(rows[0].data).toEqual({ content: { id: item.id, object: 'content', status: 'approved' } });
    });

    it('with an empty JSON body behaves as without one', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      const res = await send('POST', `/api/v1/content/${item.id}/publish`, {});
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'approved', publish_queued: true });
    });

    it('with a past scheduled_for: approved; with a future one: scheduled for that time', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      const from = await eventCount();
      const res = await send('POST', `/api/v1/content/${item.id}/publish`, {
        scheduled_for: '2026-03-10T13:00:00+01:00',
      });
      expect(res.status).toBe(202);
      // 13:00+01:00 is 12:00Z, which is before the clock's 12:00:30Z: not in the future.
      expect(res.body).toMatchObject({ status: 'approved', publish_queued: true });

      const later = await send('POST', `/api/v1/content/${item.id}/publish`, {
        scheduled_for: '2026-03-11T09:00:00+01:00',
      });
      expect(later.status).toBe(202);
      expect(later.body).toMatchObject({
        status: 'scheduled',
        publish_queued: true,
        scheduled_for: '2026-03-11T08:00:00.000Z',
      });
      const rows = await newEvents(from);
      expect(rows.map((e) => e.type)).toEqual(['content.approved', 'content.approved']);
      expect(rows[1].data).toEqual({ content: { id: item.id, object: 'content', status: 'scheduled' } });
    });

    it('with scheduled_for equal to now: approved, not scheduled', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      const res = await send('POST', `/api/v1/content/${item.id}/publish`, {
        scheduled_for: bed.runtime.clock.now().toISOString(),
      });
      expect(res.body.status).toBe('approved');
      bed.runtime.clock.advance(1);
      const next = await send('POST', `/api/v1/content/${item.id}/publish`, {
        scheduled_for: new Date(bed.runtime.clock.now().getTime() + 1).toISOString(),
      });
      expect(next.body.status).toBe('scheduled');
    });

    it.each(['draft', 'pending_review', 'rejected', 'scheduled'])('works from %s', async (status) => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, {
        target_platforms: ['linkedin'],
        scheduled_for: '2026-04-01T00:00:00Z',
      });
      expect((await send('PATCH', `/api/v1/content/${item.id}`, { status })).status).toBe(200);
      const res = await send('POST', `/api/v1/content/${item.id}/publish`);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'approved', publish_queued: true });
    });
  });

  describe('DELETE', () => {
    it('archives, answers the deletion object and writes content.deleted with the id at the top of data', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'approved' });
      const from = await eventCount();
      const res = await send('DELETE', `/api/v1/content/${item.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: item.id, object: 'content', deleted: true });
      const rows = await newEvents(from);
      expect(rows.map((e) => e.type)).toEqual(['content.deleted']);
      expect(rows[0].data).toEqual({ id: item.id });

      expect((await send('GET', `/api/v1/content/${item.id}`)).body).toMatchObject({
        status: 'archived',
        publish_queued: false,
      });
      expect((await send('GET', '/api/v1/content')).body.data).toEqual([]);
      expect((await send('GET', '/api/v1/content?status=archived')).body.data.map((c: any) => c.id)).toEqual([item.id]);
    });

    it('of a queued item takes it out of the queue', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      expect((await send('POST', `/api/v1/content/${item.id}/publish`)).body.publish_queued).toBe(true);
      await send('DELETE', `/api/v1/content/${item.id}`);
      expect((await send('GET', `/api/v1/content/${item.id}`)).body).toMatchObject({
        status: 'archived',
        publish_queued: false,
      });
    });
  });

  describe('failed operations write no event', () => {
    it('409 on an archived item', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      await forceStatus(bed.runtime, item.id, 'archived');
      const from = await eventCount();
      expectError(await send('PATCH', `/api/v1/content/${item.id}`, { status: 'approved' }), 409, 'invalid_state');
      expectError(await send('POST', `/api/v1/content/${item.id}/publish`), 409, 'invalid_state');
      expectError(await send('DELETE', `/api/v1/content/${item.id}`), 409, 'invalid_state');
      expect(await newEvents(from)).toEqual([]);
    });

    it('409 on an item being published', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      await forceStatus(bed.runtime, item.id, 'publishing');
      const from = await eventCount();
      expectError(await send('PATCH', `/api/v1/content/${item.id}`, { status: 'approved' }), 409, 'invalid_state');
      expectError(await send('POST', `/api/v1/content/${item.id}/publish`), 409, 'invalid_state');
      expect(await newEvents(from)).toEqual([]);
    });

    it('400 on a create or a PATCH that fails validation', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace);
      const from = await eventCount();
      expectError(await send('POST', '/api/v1/content', { caption: '' }), 400, 'invalid_body', { details: true });
      expectError(await send('PATCH', `/api/v1/content/${item.id}`, { status: 'scheduled' }), 400, 'invalid_body', {
        details: true,
      });
      expectError(await send('PATCH', `/api/v1/content/${item.id}`, {}), 400, 'no_updates');
      expect(await newEvents(from)).toEqual([]);
    });

    it('422 on publish without target platforms', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace);
      const from = await eventCount();
      expectError(await send('POST', `/api/v1/content/${item.id}/publish`), 422, 'no_target_platforms');
      expect(await newEvents(from)).toEqual([]);
    });
  });

  describe('the change and its event commit together', () => {
    // A trigger makes every outbox insert fail: if the event were written outside the change's
    // transaction, the change would still land. Each engine spells a trigger its own way.
    const breakOutbox = async () => {
      const { db } = bed.runtime;
      if (TEST_ENGINE === 'sqlite') {
        await db.run(
          sql`create trigger refuse_events before insert on events begin select raise(abort, 'outbox down'); end`,
        );
        return;
      }
      await db.run(
        sql`create or replace function refuse_events() returns trigger language plpgsql as $$ begin raise exception 'outbox down'; end $$`,
      );
      await db.run(
        sql`create trigger refuse_events before insert on events for each row execute function refuse_events()`,
      );
    };
    const mendOutbox = () =>
      bed.runtime.db.run(
        TEST_ENGINE === 'sqlite' ? sql`drop trigger refuse_events` : sql`drop trigger refuse_events on events`,
      );

    it.each([
      ['PATCH', (id: string) => send('PATCH', `/api/v1/content/${id}`, { caption: 'Lost', status: 'approved' })],
      ['publish', (id: string) => send('POST', `/api/v1/content/${id}/publish`)],
      ['DELETE', (id: string) => send('DELETE', `/api/v1/content/${id}`)],
    ])('%s is rolled back when its event cannot be written', async (_label, act) => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      const before = await contentRow(bed.runtime, item.id);
      await breakOutbox();
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        expectError(await act(item.id), 500, 'internal');
      } finally {
        quiet.mockRestore();
      }
      expect(await contentRow(bed.runtime, item.id)).toEqual(before);
    });

    it('create stores no item when its event cannot be written', async () => {
      await breakOutbox();
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        expectError(await send('POST', '/api/v1/content', { caption: 'Lost' }), 500, 'internal');
      } finally {
        quiet.mockRestore();
      }
      await mendOutbox();
      expect((await send('GET', '/api/v1/content')).body.data).toEqual([]);
    });
  });

  it('each event belongs to the workspace that caused it', async () => {
    const other = await makeWorkspace(bed.runtime);
    await send('POST', '/api/v1/content', { caption: 'mine' });
    await call(bed.server, 'POST', '/api/v1/content', { headers: other.headers, body: { caption: 'theirs' } });
    expect((await eventsOf(bed.runtime, bed.ws.workspace.id)).map((e) => (e.data.content as any).caption)).toEqual([
      'mine',
    ]);
    expect((await eventsOf(bed.runtime, other.workspace.id)).map((e) => (e.data.content as any).caption)).toEqual([
      'theirs',
    ]);
  });
});
