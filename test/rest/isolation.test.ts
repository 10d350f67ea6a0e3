import { beforeEach, describe, expect, it } from 'vitest';
import type { ContentResource } from '../../src/core/content/serialize.ts';
import { makeContent, makeKey, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, contentRow, eventsOf, expectError, forceStatus } from '../helpers/rest-expect.ts';

/**
 * Every request is scoped to the key's workspace; another
 * workspace's item answers as not found, and nothing about it changes.
 */
describe('REST content: cross-workspace isolation', () => {
  let a: TestWorkspace;
  let b: TestWorkspace;
  let item: ContentResource;
  const bed = useRestTestbed({ env: baseEnv });
  beforeEach(async () => {
    a = await makeWorkspace(bed.runtime, { name: 'A' });
    b = await makeWorkspace(bed.runtime, { name: 'B' });
    item = await makeContent(bed.runtime, a.workspace, {
      caption: 'A only',
      target_platforms: ['twitter'],
      status: 'approved',
    });
  });

  const as = (ws: TestWorkspace, method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: ws.headers, body });

  const attempts: Array<[string, string, string, unknown]> = [
    ['GET /content/{id}', 'GET', '', undefined],
    ['PATCH /content/{id}', 'PATCH', '', { caption: 'Hijacked', status: 'rejected' }],
    ['PATCH /content/{id} to approved', 'PATCH', '', { status: 'approved' }],
    ['DELETE /content/{id}', 'DELETE', '', undefined],
    ['POST /content/{id}/publish', 'POST', '/publish', undefined],
    ['POST /content/{id}/publish with a time', 'POST', '/publish', { scheduled_for: '2026-04-01T00:00:00Z' }],
  ];

  it.each(attempts)("%s of A's item from B is 404 and changes nothing", async (_label, method, suffix, body) => {
    const rowBefore = await contentRow(bed.runtime, item.id);
    const eventsBefore = await eventsOf(bed.runtime);
    const res = await as(b, method, `/api/v1/content/${item.id}${suffix}`, body);
    expectError(res, 404, 'not_found');
    expect(await contentRow(bed.runtime, item.id)).toEqual(rowBefore);
    expect(await eventsOf(bed.runtime)).toEqual(eventsBefore);
    expect((await as(a, 'GET', `/api/v1/content/${item.id}`)).body).toEqual(item);
  });

  it("B's 404 for A's item is the same as for an id that does not exist", async () => {
    const foreign = await as(b, 'GET', `/api/v1/content/${item.id}`);
    const missing = await as(b, 'GET', '/api/v1/content/00000000-0000-4000-8000-000000000000');
    expect(foreign.status).toBe(missing.status);
    expect(foreign.body).toEqual(missing.body);
  });

  it("B cannot see A's archived or publishing items either", async () => {
    const archived = await makeContent(bed.runtime, a.workspace, { target_platforms: ['twitter'] });
    await forceStatus(bed.runtime, archived.id, 'archived');
    const publishing = await makeContent(bed.runtime, a.workspace, { target_platforms: ['twitter'] });
    await forceStatus(bed.runtime, publishing.id, 'publishing');
    // 404, not 409: the state of another workspace's item must not leak.
    for (const id of [archived.id, publishing.id]) {
      expectError(await as(b, 'GET', `/api/v1/content/${id}`), 404, 'not_found');
      expectError(await as(b, 'PATCH', `/api/v1/content/${id}`, { caption: 'x' }), 404, 'not_found');
      expectError(await as(b, 'POST', `/api/v1/content/${id}/publish`), 404, 'not_found');
      expectError(await as(b, 'DELETE', `/api/v1/content/${id}`), 404, 'not_found');
    }
  });

  it('an id in the body does not redirect a PATCH or publish to another item', async () => {
    const own = await makeContent(bed.runtime, b.workspace, { target_platforms: ['twitter'] });
    const patched = await as(b, 'PATCH', `/api/v1/content/${own.id}`, { id: item.id, caption: 'Mine' });
    expect(patched.status).toBe(200);
    expect(patched.body.id).toBe(own.id);
    const published = await as(b, 'POST', `/api/v1/content/${own.id}/publish`, { id: item.id });
    expect(published.body.id).toBe(own.id);
    expect((await as(a, 'GET', `/api/v1/content/${item.id}`)).body).toEqual(item);
  });

  describe('lists', () => {
    it('never show another workspace: all statuses, filters and cursors', async () => {
      const bItems = [
        await makeContent(bed.runtime, b.workspace, { caption: 'B one' }),
        await makeContent(bed.runtime, b.workspace, { caption: 'B two' }),
      ];
      const archived = await makeContent(bed.runtime, a.workspace, { caption: 'A archived' });
      await forceStatus(bed.runtime, archived.id, 'archived');
      const bIds = new Set(bItems.map((i) => i.id));

      for (const query of [
        '',
        '?status=approved',
        '?status=archived',
        '?status=draft',
        '?content_type=single_image',
        '?limit=100',
      ]) {
        const res = await as(b, 'GET', `/api/v1/content${query}`);
        expect(res.status).toBe(200);
        for (const c of res.body.data) expect(bIds.has(c.id), `${query}: ${c.caption}`).toBe(true);
      }
      const all = await as(b, 'GET', '/api/v1/content');
      expect(all.body.data.map((c: ContentResource) => c.id).sort()).toEqual([...bIds].sort());
    });

    it("A's cursor used by B walks B's items only", async () => {
      for (let i = 0; i < 5; i += 1) await makeContent(bed.runtime, a.workspace, { caption: `A ${i}` });
      bed.runtime.clock.advance(-10_000);
      const bItem = await makeContent(bed.runtime, b.workspace, { caption: 'B old' });
      bed.runtime.clock.advance(20_000);
      const page = await as(a, 'GET', '/api/v1/content?limit=2');
      expect(page.body.has_more).toBe(true);
      const res = await as(b, 'GET', `/api/v1/content?cursor=${page.body.next_cursor}`);
      expect(res.body.data.map((c: ContentResource) => c.id)).toEqual([bItem.id]);
    });

    it('items created through one workspace never appear in the other', async () => {
      const created = await as(a, 'POST', '/api/v1/content', { caption: 'Fresh in A' });
      expect(created.status).toBe(201);
      const bList = await as(b, 'GET', '/api/v1/content?limit=100');
      expect(bList.body.data.map((c: ContentResource) => c.id)).not.toContain(created.body.id);
    });
  });

  it('two keys of one workspace see the same items', async () => {
    const second = await makeKey(bed.runtime, a.workspace.id);
    const res = await call(bed.server, 'GET', `/api/v1/content/${item.id}`, {
      headers: { authorization: `Bearer ${second.apiKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(item);
  });
});
