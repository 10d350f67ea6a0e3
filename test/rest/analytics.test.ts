import { beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { HISTORY_NOW, recordPublishRun, seedKnownHistory } from '../helpers/publish-history.ts';
import { baseEnv, expectError, expectFieldError } from '../helpers/rest-expect.ts';

const DAY = 86_400_000;

/** `days` zero entries from `first`, with the listed days set to [published, failed]. */
function dailyFrom(first: string, days: number, counts: Record<string, [number, number]> = {}) {
  const start = Date.parse(`${first}T00:00:00.000Z`);
  return Array.from({ length: days }, (_, i) => {
    const date = new Date(start + i * DAY).toISOString().slice(0, 10);
    const [published, failed] = counts[date] ?? [0, 0];
    return { date, published, failed };
  });
}

/** GET /api/v1/analytics/overview over the known history of test/helpers/publish-history.ts. */
describe('REST GET /api/v1/analytics/overview', () => {
  const bed = useRestTestbed({ env: baseEnv, start: HISTORY_NOW });
  let other: TestWorkspace;
  const get = (query = '', as: TestWorkspace = bed.ws) =>
    call(bed.server, 'GET', `/api/v1/analytics/overview${query}`, { headers: as.headers });

  beforeEach(async () => {
    other = await makeWorkspace(bed.runtime);
    await seedKnownHistory(bed.runtime, bed.ws.workspace, other.workspace);
  });

  it('answers the last 30 days by default, with every figure', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'analytics_overview',
      days: 30,
      period_start: '2026-02-09T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 4, failed: 2 },
      platforms: [
        { platform: 'facebook', published: 1, failed: 1 },
        { platform: 'instagram', published: 0, failed: 2 },
        { platform: 'linkedin', published: 2, failed: 2 },
        { platform: 'tiktok', published: 0, failed: 1 },
        { platform: 'twitter', published: 4, failed: 1 },
      ],
      daily: dailyFrom('2026-02-09', 30, {
        '2026-02-09': [1, 0],
        '2026-03-08': [1, 0],
        '2026-03-09': [1, 1],
        '2026-03-10': [1, 1],
      }),
    });
    expect(Object.keys(res.body)).toEqual([
      'object',
      'days',
      'period_start',
      'period_end',
      'totals',
      'platforms',
      'daily',
    ]);
  });

  it('takes days from the query string: days=2 reaches back to the previous UTC midnight', async () => {
    const res = await get('?days=2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'analytics_overview',
      days: 2,
      period_start: '2026-03-09T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 2, failed: 2 },
      platforms: [
        { platform: 'facebook', published: 0, failed: 1 },
        { platform: 'instagram', published: 0, failed: 2 },
        { platform: 'linkedin', published: 1, failed: 2 },
        { platform: 'twitter', published: 3, failed: 1 },
      ],
      daily: [
        { date: '2026-03-09', published: 1, failed: 1 },
        { date: '2026-03-10', published: 1, failed: 1 },
      ],
    });
  });

  it('days=1 is today only', async () => {
    const res = await get('?days=1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      days: 1,
      period_start: '2026-03-10T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 1, failed: 1 },
      platforms: [
        { platform: 'instagram', published: 0, failed: 2 },
        { platform: 'linkedin', published: 1, failed: 1 },
        { platform: 'twitter', published: 2, failed: 1 },
      ],
      daily: [{ date: '2026-03-10', published: 1, failed: 1 }],
    });
  });

  it("caps days at the plan's analytics_history_days without an error (starter: 30)", async () => {
    const starter = await makeWorkspace(bed.runtime, { plan: 'starter' });
    const me = await call(bed.server, 'GET', '/api/v1/me', { headers: starter.headers });
    expect(me.body.features.analytics_history_days).toBe(30);
    await recordPublishRun(bed.runtime, starter.workspace, {
      finishedAt: '2026-02-09T00:00:00.000Z',
      platforms: { twitter: 'published' },
    });
    await recordPublishRun(bed.runtime, starter.workspace, {
      finishedAt: '2026-02-08T23:59:59.999Z',
      platforms: { twitter: 'rejected' },
    });
    for (const query of ['?days=365', '?days=31', '']) {
      const res = await get(query, starter);
      expect(res.status, query).toBe(200);
      expect(res.body, query).toEqual({
        object: 'analytics_overview',
        days: 30,
        period_start: '2026-02-09T00:00:00.000Z',
        period_end: HISTORY_NOW,
        totals: { published: 1, failed: 0 },
        platforms: [{ platform: 'twitter', published: 1, failed: 0 }],
        daily: dailyFrom('2026-02-09', 30, { '2026-02-09': [1, 0] }),
      });
    }
    expect((await get('?days=29', starter)).body.days).toBe(29);
  });

  it('goes up to 365 days on a plan that keeps them (business)', async () => {
    const business = await makeWorkspace(bed.runtime, { plan: 'business' });
    await recordPublishRun(bed.runtime, business.workspace, {
      finishedAt: '2025-03-11T00:00:00.000Z',
      platforms: { linkedin: 'published' },
    });
    await recordPublishRun(bed.runtime, business.workspace, {
      finishedAt: '2025-03-10T23:59:59.999Z',
      platforms: { linkedin: 'published' },
    });
    const res = await get('?days=365', business);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'analytics_overview',
      days: 365,
      period_start: '2025-03-11T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 1, failed: 0 },
      platforms: [{ platform: 'linkedin', published: 1, failed: 0 }],
      daily: dailyFrom('2025-03-11', 365, { '2025-03-11': [1, 0] }),
    });
    expect(res.body.daily.at(-1).date).toBe('2026-03-10');
  });

  it('refuses days that are not a whole number from 1 to 365: 400 invalid_body with details.fieldErrors.days', async () => {
    for (const query of [
      '?days=abc',
      '?days=0',
      '?days=366',
      '?days=-1',
      '?days=1.5',
      '?days=',
      '?days=7&days=8',
      '?days=1e2',
    ]) {
      const res = await get(query);
      expectFieldError(res, 'days');
      expect(res.body.error.details.formErrors, query).toEqual([]);
      expect(res.headers.get('x-ratelimit-limit'), query).toBe('300');
    }
  });

  it("never counts another workspace's history: each key sees its own figures", async () => {
    const theirs = await get('', other);
    expect(theirs.status).toBe(200);
    expect(theirs.body).toEqual({
      object: 'analytics_overview',
      days: 30,
      period_start: '2026-02-09T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 2, failed: 1 },
      platforms: [
        { platform: 'facebook', published: 0, failed: 1 },
        { platform: 'instagram', published: 0, failed: 1 },
        { platform: 'linkedin', published: 1, failed: 0 },
        { platform: 'tiktok', published: 1, failed: 0 },
        { platform: 'twitter', published: 1, failed: 0 },
      ],
      daily: dailyFrom('2026-02-09', 30, { '2026-02-20': [1, 0], '2026-03-09': [0, 1], '2026-03-10': [1, 0] }),
    });
    const empty = await makeWorkspace(bed.runtime);
    const none = await get('?days=90', empty);
    expect(none.body).toMatchObject({ days: 90, totals: { published: 0, failed: 0 }, platforms: [] });
    expect(none.body.daily).toEqual(dailyFrom('2025-12-11', 90));
  });

  it('is a read: it takes from the read bucket and answers GET only', async () => {
    const res = await get('?days=7');
    expect(res.headers.get('x-ratelimit-limit')).toBe('300');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('299');
    const post = await call(bed.server, 'POST', '/api/v1/analytics/overview', { headers: bed.ws.headers, body: {} });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('needs an API key of a plan with API access', async () => {
    expectError(await call(bed.server, 'GET', '/api/v1/analytics/overview'), 401, 'missing_key');
    const free = await makeWorkspace(bed.runtime, { plan: 'free' });
    expectError(await get('', free), 403, 'plan_forbidden');
  });
});
