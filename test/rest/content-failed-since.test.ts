import { describe, expect, it } from 'vitest';
import { runOperation } from '../../src/core/operation.ts';
import { contextFor } from '../../src/core/context.ts';
import { workspaceAtAGlance } from '../../src/core/accounts/at-a-glance.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { recordPublishRun } from '../helpers/publish-history.ts';
import { baseEnv } from '../helpers/rest-expect.ts';

const HOUR = 3_600_000;

/**
 * GET /api/v1/content?failed_since=…: items with a publishing run that failed (on every platform)
 * and finished at or after the instant. It is the list behind the home page's "Failed (last 24 hours)".
 */
describe('REST content: failed_since', () => {
  const bed = useRestTestbed({ env: baseEnv });
  const list = (query: string, headers = bed.ws.headers) =>
    call(bed.server, 'GET', `/api/v1/content?${query}`, { headers });
  const ago = (hours: number) => new Date(bed.runtime.clock.now().getTime() - hours * HOUR);
  const idsOf = (body: { data: Array<{ id: string }> }) => body.data.map((item) => item.id).sort();

  it('lists the items whose run failed at or after the instant, and no others', async () => {
    const { workspace } = bed.ws;
    const failedRecently = await recordPublishRun(bed.runtime, workspace, {
      finishedAt: ago(2),
      platforms: { twitter: 'rejected' },
    });
    const failedLongAgo = await recordPublishRun(bed.runtime, workspace, {
      finishedAt: ago(30),
      platforms: { twitter: 'rejected' },
    });
    // A run that published on one platform is not a failed run, although the other platform refused.
    await recordPublishRun(bed.runtime, workspace, {
      finishedAt: ago(1),
      platforms: { twitter: 'published', linkedin: 'rejected' },
    });
    const exactlyAtTheInstant = await recordPublishRun(bed.runtime, workspace, {
      finishedAt: ago(24),
      platforms: { linkedin: 'rejected' },
    });
    await makeContent(bed.runtime, workspace, { status: 'approved' });

    const res = await list(`failed_since=${encodeURIComponent(ago(24).toISOString())}`);
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([failedRecently.contentId, exactlyAtTheInstant.contentId].sort());
    expect(res.body.data.every((item: { status: string }) => item.status === 'approved')).toBe(true);

    const older = await list(`failed_since=${encodeURIComponent(ago(48).toISOString())}`);
    expect(idsOf(older.body)).toEqual(
      [failedRecently.contentId, exactlyAtTheInstant.contentId, failedLongAgo.contentId].sort(),
    );
  });

  it('lists an item once, however many of its runs failed, and combines with the other filters', async () => {
    const { workspace } = bed.ws;
    const twice = await recordPublishRun(bed.runtime, workspace, {
      finishedAt: ago(5),
      platforms: { twitter: 'rejected' },
    });
    await recordPublishRun(bed.runtime, workspace, {
      finishedAt: ago(3),
      platforms: { twitter: 'unknown' },
      contentId: twice.contentId,
    });
    const since = encodeURIComponent(ago(24).toISOString());
    expect(idsOf((await list(`failed_since=${since}`)).body)).toEqual([twice.contentId]);
    expect((await list(`failed_since=${since}&status=approved`)).body.data).toHaveLength(1);
    expect((await list(`failed_since=${since}&status=draft`)).body.data).toHaveLength(0);
  });

  it('counts on the home page exactly what the list answers', async () => {
    const { workspace } = bed.ws;
    for (const hours of [1, 10, 23, 25, 40]) {
      await recordPublishRun(bed.runtime, workspace, { finishedAt: ago(hours), platforms: { twitter: 'rejected' } });
    }
    const glance = await runOperation(workspaceAtAGlance, contextFor(bed.runtime, workspace, 'rest'), {});
    expect(glance.failedSince.toISOString()).toBe(ago(24).toISOString());
    const res = await list(`failed_since=${encodeURIComponent(glance.failedSince.toISOString())}&limit=100`);
    expect(res.body.data).toHaveLength(3);
    expect(glance.failedLast24Hours).toBe(3);
  });

  it("never lists another workspace's failed items", async () => {
    const other = await makeWorkspace(bed.runtime);
    await recordPublishRun(bed.runtime, other.workspace, { finishedAt: ago(1), platforms: { twitter: 'rejected' } });
    const res = await list(`failed_since=${encodeURIComponent(ago(24).toISOString())}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(
      (await list(`failed_since=${encodeURIComponent(ago(24).toISOString())}`, other.headers)).body.data,
    ).toHaveLength(1);
  });

  it('is in the OpenAPI document as an optional date-time query parameter of GET /api/v1/content', async () => {
    const doc = (await call(bed.server, 'GET', '/api/v1/openapi.json')).body;
    const param = doc.paths['/api/v1/content'].get.parameters.find((p: { name: string }) => p.name === 'failed_since');
    expect(param).toMatchObject({ in: 'query', required: false, schema: { type: 'string', format: 'date-time' } });
  });

  it('answers 400 with fieldErrors.failed_since to a date-time it cannot read', async () => {
    for (const bad of ['yesterday', '2026-03-09', '2026-03-09T12:00:00', '']) {
      const res = await list(`failed_since=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.details.fieldErrors.failed_since, bad).toBeInstanceOf(Array);
    }
  });
});
