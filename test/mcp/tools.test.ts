import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events } from '../../db/schema/index.ts';
import { makeContent } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { useMcpTestbed } from '../helpers/mcp.ts';
import { toolResult } from '../helpers/tool-calls.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Two answers of one operation on twin items: equal but for the id. */
const withoutId = (resource: Record<string, unknown>) => ({ ...resource, id: '<id>' });

describe('MCP tools end to end: the same JSON as the REST route', () => {
  const bed = useMcpTestbed();

  const rest = (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });
  const eventsOf = async (contentId: string, type: string) =>
    (
      await bed.runtime.db
        .select()
        .from(events)
        .where(and(eq(events.workspaceId, bed.ws.workspace.id), eq(events.type, type)))
        .all()
    ).filter((e) => {
      const data = e.data as { id?: string; content?: { id?: string } };
      return data.id === contentId || data.content?.id === contentId;
    });

  it('service_get_account answers what GET /me answers', async () => {
    const account = await toolResult(bed.client, 'service_get_account');
    const me = await rest('GET', '/api/v1/me');
    expect(me.status).toBe(200);
    expect(account).toEqual(me.body);
    expect(account.org_id).toMatch(/^org_/);
    expect(account).toMatchObject({ plan: 'pro', plan_status: 'active', is_active: true, is_trialing: false });
    expect(Object.keys(account.features).sort()).toEqual(
      ['analytics_history_days', 'api_access', 'monthly_ai_credits', 'platforms_limit', 'posts_per_month'].sort(),
    );
  });

  it('service_create_content creates the item POST /content would, with the defaults', async () => {
    const created = await toolResult(bed.client, 'service_create_content', { caption: 'Launch day' });
    expect(created.id).toMatch(UUID);
    expect(created).toMatchObject({
      object: 'content',
      caption: 'Launch day',
      hashtags: [],
      content_type: 'single_image',
      target_platforms: [],
      media_urls: [],
      status: 'draft',
      scheduled_for: null,
      published_at: null,
    });
    const stored = await rest('GET', `/api/v1/content/${created.id}`);
    expect(created).toEqual(stored.body);

    const twin = await rest('POST', '/api/v1/content', { caption: 'Launch day' });
    expect(twin.status).toBe(201);
    expect(withoutId(created)).toEqual(withoutId(twin.body));
    expect(await eventsOf(created.id, 'content.created')).toHaveLength(1);
  });

  it('service_create_content takes every create field by its REST name', async () => {
    const args = {
      caption: 'All the fields',
      hashtags: ['#launch', 'spring'],
      content_type: 'carousel',
      target_platforms: ['twitter', 'linkedin'],
      media_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
      topic: 'Spring launch',
      platform_specific: { twitter: { caption: 'Short one' } },
      aspect_ratio: '4:5',
      scheduled_for: '2026-04-01T09:00:00+02:00',
      status: 'scheduled',
    };
    const created = await toolResult(bed.client, 'service_create_content', args);
    expect(created).toMatchObject({
      ...args,
      hashtags: ['launch', 'spring'],
      scheduled_for: '2026-04-01T07:00:00.000Z',
      status: 'scheduled',
    });
    const twin = await rest('POST', '/api/v1/content', args);
    expect(withoutId(created)).toEqual(withoutId(twin.body));
  });

  it('service_get_content answers what GET /content/{id} answers', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['tiktok'], hashtags: ['a'] });
    const viaTool = await toolResult(bed.client, 'service_get_content', { id: item.id });
    const viaRest = await rest('GET', `/api/v1/content/${item.id}`);
    expect(viaRest.status).toBe(200);
    expect(viaTool).toEqual(viaRest.body);
    expect(viaTool).toEqual(item);
  });

  it('service_list_content pages and filters like GET /content', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(
        (
          await makeContent(bed.runtime, bed.ws.workspace, {
            caption: `Item ${i}`,
            content_type: i % 2 ? 'reel' : 'text_only',
          })
        ).id,
      );
      bed.runtime.clock.advance(1000);
    }
    const first = await toolResult(bed.client, 'service_list_content', { limit: 2 });
    const firstRest = await rest('GET', '/api/v1/content?limit=2');
    expect(first).toEqual(firstRest.body);
    expect(first.object).toBe('list');
    expect(first.data.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
    expect(first.has_more).toBe(true);
    expect(typeof first.next_cursor).toBe('string');

    const second = await toolResult(bed.client, 'service_list_content', { limit: 2, cursor: first.next_cursor });
    const secondRest = await rest('GET', `/api/v1/content?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(second).toEqual(secondRest.body);
    expect(second.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);

    const reels = await toolResult(bed.client, 'service_list_content', { content_type: 'reel' });
    expect(reels).toEqual((await rest('GET', '/api/v1/content?content_type=reel')).body);
    expect(reels.data.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[1]]);
    expect(reels).toMatchObject({ has_more: false, next_cursor: null });

    const drafts = await toolResult(bed.client, 'service_list_content', { status: 'draft', limit: 100 });
    expect(drafts).toEqual((await rest('GET', '/api/v1/content?status=draft&limit=100')).body);
    expect(drafts.data).toHaveLength(5);
  });

  it('service_update_content changes fields as PATCH does and approval emits content.approved', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace);
    const twin = await makeContent(bed.runtime, bed.ws.workspace);
    bed.runtime.clock.advance(5000);
    const patch = { caption: 'Edited', hashtags: ['fresh'], status: 'approved', unknown_field: 'ignored' };
    const updated = await toolResult(bed.client, 'service_update_content', { id: item.id, ...patch });
    expect(updated).toMatchObject({ id: item.id, caption: 'Edited', hashtags: ['fresh'], status: 'approved' });
    expect(updated).not.toHaveProperty('unknown_field');
    expect(updated.updated_at).toBe(bed.runtime.clock.now().toISOString());
    expect(updated).toEqual((await rest('GET', `/api/v1/content/${item.id}`)).body);

    const viaRest = await rest('PATCH', `/api/v1/content/${twin.id}`, patch);
    expect(viaRest.status).toBe(200);
    expect(withoutId(updated)).toEqual(withoutId(viaRest.body));

    expect(await eventsOf(item.id, 'content.updated')).toHaveLength(1);
    const approved = await eventsOf(item.id, 'content.approved');
    expect(approved).toHaveLength(1);
    expect(approved[0].data).toEqual({ content: { id: item.id, object: 'content', status: 'approved' } });

    // Approving an approved item fires the approved event again, by contract.
    await toolResult(bed.client, 'service_update_content', { id: item.id, status: 'approved' });
    expect(await eventsOf(item.id, 'content.approved')).toHaveLength(2);
  });

  it('service_update_content accepts status rejected, which create does not', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace);
    const updated = await toolResult(bed.client, 'service_update_content', { id: item.id, status: 'rejected' });
    expect(updated.status).toBe('rejected');
  });

  it('service_publish_content queues the item: approved, publish_queued true, a content.approved event', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
    const twin = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
    const published = await toolResult(bed.client, 'service_publish_content', { id: item.id });
    expect(published).toMatchObject({ id: item.id, object: 'content', status: 'approved', publish_queued: true });
    expect(published.publish_results).toEqual([]);
    expect(published).toEqual((await rest('GET', `/api/v1/content/${item.id}`)).body);

    const viaRest = await rest('POST', `/api/v1/content/${twin.id}/publish`);
    expect(viaRest.status).toBe(202);
    expect(withoutId(published)).toEqual(withoutId(viaRest.body));

    const approved = await eventsOf(item.id, 'content.approved');
    expect(approved).toHaveLength(1);
    expect(approved[0].data).toEqual({ content: { id: item.id, object: 'content', status: 'approved' } });
  });

  it('service_publish_content with a future scheduled_for schedules the item', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['linkedin'] });
    const published = await toolResult(bed.client, 'service_publish_content', {
      id: item.id,
      scheduled_for: '2026-03-11T10:00:00-05:00',
    });
    expect(published).toMatchObject({
      status: 'scheduled',
      scheduled_for: '2026-03-11T15:00:00.000Z',
      publish_queued: true,
    });
    expect(await eventsOf(item.id, 'content.approved')).toHaveLength(1);
  });

  it('service_publish_content with a past scheduled_for queues the item for the next run', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['facebook'] });
    const published = await toolResult(bed.client, 'service_publish_content', {
      id: item.id,
      scheduled_for: '2026-03-10T11:00:00Z',
    });
    expect(published).toMatchObject({ status: 'approved', publish_queued: true });
  });

  it('service_delete_content archives: {id, object, deleted}, out of lists, still readable', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace);
    const twin = await makeContent(bed.runtime, bed.ws.workspace);
    const deleted = await toolResult(bed.client, 'service_delete_content', { id: item.id });
    expect(deleted).toEqual({ id: item.id, object: 'content', deleted: true });
    const viaRest = await rest('DELETE', `/api/v1/content/${twin.id}`);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toEqual({ id: twin.id, object: 'content', deleted: true });

    const stored = await toolResult(bed.client, 'service_get_content', { id: item.id });
    expect(stored.status).toBe('archived');
    const listed = await toolResult(bed.client, 'service_list_content');
    expect(listed.data).toEqual([]);
    const archived = await toolResult(bed.client, 'service_list_content', { status: 'archived' });
    expect(archived.data.map((c: { id: string }) => c.id).sort()).toEqual([item.id, twin.id].sort());
    expect((await eventsOf(item.id, 'content.deleted')).map((e) => e.data)).toEqual([{ id: item.id }]);
  });
});
