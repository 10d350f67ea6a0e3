import { describe, expect, it } from 'vitest';
import { makeContent } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv } from '../helpers/rest-expect.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The content endpoints on their happy paths. */
describe('REST content: happy paths', () => {
  const bed = useRestTestbed({ env: baseEnv });

  const send = (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });

  it('creates an item with only a caption and fills every default', async () => {
    const res = await send('POST', '/api/v1/content', { caption: 'Hello world' });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(UUID);
    const now = bed.runtime.clock.now().toISOString();
    expect(res.body).toEqual({
      id: res.body.id,
      object: 'content',
      caption: 'Hello world',
      hashtags: [],
      content_type: 'single_image',
      target_platforms: [],
      media_urls: [],
      media_alt_text: {},
      topic: null,
      platform_specific: {},
      aspect_ratio: null,
      scheduled_for: null,
      published_at: null,
      status: 'draft',
      campaign_id: null,
      publish_queued: false,
      publish_results: [],
      created_by: { type: 'api_key', id: bed.ws.keyId },
      review_note: null,
      created_at: now,
      updated_at: now,
    });
    expect(now).toBe('2026-03-10T12:00:30.000Z');
  });

  it('creates an item with every field and reads it back the same', async () => {
    const body = {
      caption: 'Launch day',
      hashtags: ['#launch', 'product'],
      content_type: 'carousel',
      target_platforms: ['twitter', 'linkedin'],
      media_urls: ['https://cdn.example.com/1.png', 'http://cdn.example.com/2.png'],
      topic: 'Launch',
      platform_specific: { twitter: { caption: 'Short launch', hashtags: ['#x'] } },
      aspect_ratio: '4:5',
      scheduled_for: '2026-04-01T09:30:00+02:00',
      status: 'scheduled',
    };
    const created = await send('POST', '/api/v1/content', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      caption: 'Launch day',
      hashtags: ['launch', 'product'],
      content_type: 'carousel',
      target_platforms: ['twitter', 'linkedin'],
      media_urls: ['https://cdn.example.com/1.png', 'http://cdn.example.com/2.png'],
      topic: 'Launch',
      platform_specific: { twitter: { caption: 'Short launch', hashtags: ['x'] } },
      aspect_ratio: '4:5',
      scheduled_for: '2026-04-01T07:30:00.000Z',
      status: 'scheduled',
    });
    const read = await send('GET', `/api/v1/content/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('updates only the fields sent and moves updated_at', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { hashtags: ['keep'], topic: 'Topic' });
    bed.runtime.clock.advance(5000);
    const res = await send('PATCH', `/api/v1/content/${item.id}`, { caption: 'Edited', status: 'pending_review' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...item,
      caption: 'Edited',
      status: 'pending_review',
      updated_at: '2026-03-10T12:00:35.000Z',
    });
    expect((await send('GET', `/api/v1/content/${item.id}`)).body).toEqual(res.body);
  });

  it('clears nullable fields with null', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      topic: 'T',
      aspect_ratio: '1:1',
      scheduled_for: '2026-05-01T00:00:00Z',
    });
    const res = await send('PATCH', `/api/v1/content/${item.id}`, {
      topic: null,
      aspect_ratio: null,
      scheduled_for: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ topic: null, aspect_ratio: null, scheduled_for: null });
  });

  it('deletes by archiving: the item stays readable by id and leaves the default list', async () => {
    const keep = await makeContent(bed.runtime, bed.ws.workspace, { caption: 'keep' });
    const gone = await makeContent(bed.runtime, bed.ws.workspace, { caption: 'gone' });
    const res = await send('DELETE', `/api/v1/content/${gone.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: gone.id, object: 'content', deleted: true });

    const read = await send('GET', `/api/v1/content/${gone.id}`);
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('archived');

    const list = await send('GET', '/api/v1/content');
    expect(list.body.data.map((c: any) => c.id)).toEqual([keep.id]);
    const archived = await send('GET', '/api/v1/content?status=archived');
    expect(archived.body.data.map((c: any) => c.id)).toEqual([gone.id]);
  });

  it('lists newest first in the list envelope', async () => {
    const first = await makeContent(bed.runtime, bed.ws.workspace);
    bed.runtime.clock.advance(1000);
    const second = await makeContent(bed.runtime, bed.ws.workspace);
    const res = await send('GET', '/api/v1/content');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'list', data: [second, first], has_more: false, next_cursor: null });
  });

  it('an empty workspace lists nothing', async () => {
    const res = await send('GET', '/api/v1/content');
    expect(res.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });

  it('publishes: 202 with publish_queued true and status approved', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
    const res = await send('POST', `/api/v1/content/${item.id}/publish`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: item.id, object: 'content', status: 'approved', publish_queued: true });
    expect(res.body).not.toHaveProperty('platforms');
    expect((await send('GET', `/api/v1/content/${item.id}`)).body).toEqual(res.body);
  });

  it('GET /api/v1/me describes the account', async () => {
    const res = await send('GET', '/api/v1/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      org_id: bed.ws.workspace.orgId,
      plan: 'pro',
      plan_status: 'active',
      is_active: true,
      is_trialing: false,
      features: {
        posts_per_month: 1500,
        platforms_limit: 10,
        api_access: true,
        monthly_ai_credits: 2500,
        analytics_history_days: 90,
      },
    });
    expect(res.body.org_id).toMatch(/^org_/);
  });
});
