import { describe, expect, it } from 'vitest';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { makeContent } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { connectAccounts, sandboxPostsFor } from '../helpers/publishing.ts';
import { baseEnv, expectFieldError } from '../helpers/rest-expect.ts';

// The test clock starts at 2026-03-10T12:00:30Z.
const LATER = '2026-03-10T13:00:00.000Z';
const AN_HOUR_AGO = '2026-03-10T11:00:30.000Z';
const FOUR_MINUTES_AGO = '2026-03-10T11:56:30.000Z';
const POST = { caption: 'Spring', content_type: 'text_only', target_platforms: ['linkedin'] };
/** Times no schedule may name: the year 0000, before 2000, and past 9999 once the offset is applied. */
const OUT_OF_RANGE = ['0000-01-01T00:00:00Z', '1999-12-31T23:59:59Z', '9999-12-31T23:00:00-05:00'];

describe('REST: times to publish at are bounded, and scheduling refuses a time already past', () => {
  const bed = useRestTestbed({ env: baseEnv });
  const content = (id: string) => call(bed.server, 'GET', `/api/v1/content/${id}`, { headers: bed.ws.headers });

  it('create, PATCH and publish refuse a scheduled_for outside the years 2000 to 9999 with 400 naming the field', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      ...POST,
      status: 'scheduled',
      scheduled_for: LATER,
    });
    for (const at of OUT_OF_RANGE) {
      for (const status of ['scheduled', 'draft']) {
        const created = await call(bed.server, 'POST', '/api/v1/content', {
          headers: bed.ws.headers,
          body: { ...POST, status, scheduled_for: at },
        });
        expectFieldError(created, 'scheduled_for');
      }
      expectFieldError(
        await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
          headers: bed.ws.headers,
          body: { scheduled_for: at },
        }),
        'scheduled_for',
      );
      expectFieldError(
        await call(bed.server, 'POST', `/api/v1/content/${item.id}/publish`, {
          headers: bed.ws.headers,
          body: { scheduled_for: at },
        }),
        'scheduled_for',
      );
      expectFieldError(
        await call(bed.server, 'POST', '/api/v1/campaigns', {
          headers: bed.ws.headers,
          body: { name: 'Spring', start_date: at },
        }),
        'start_date',
      );
    }
    expect((await content(item.id)).body).toMatchObject({ status: 'scheduled', scheduled_for: LATER });
  });

  it('rescheduling to the year 0000 is refused, and the publishing run posts nothing', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['linkedin']);
    const item = await makeContent(bed.runtime, bed.ws.workspace, { ...POST, status: 'approved' });
    const moved = await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
      headers: bed.ws.headers,
      body: { status: 'scheduled', scheduled_for: '0000-01-01T00:00:00Z' },
    });
    expectFieldError(moved, 'scheduled_for');
    expect(await drain(bed.runtime, publishingJob(bed.runtime))).toEqual([]);
    expect(await sandboxPostsFor(bed.runtime, item.id)).toEqual([]);
    expect((await content(item.id)).body).toMatchObject({ status: 'approved', scheduled_for: null });
  });

  it('scheduling for a time already past is refused; a few minutes of clock skew are allowed', async () => {
    const created = await call(bed.server, 'POST', '/api/v1/content', {
      headers: bed.ws.headers,
      body: { ...POST, status: 'scheduled', scheduled_for: AN_HOUR_AGO },
    });
    expectFieldError(created, 'scheduled_for');
    expect(created.body.error.details.fieldErrors.scheduled_for[0]).toMatch(/has passed/);

    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      ...POST,
      status: 'scheduled',
      scheduled_for: LATER,
    });
    expectFieldError(
      await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
        headers: bed.ws.headers,
        body: { scheduled_for: AN_HOUR_AGO },
      }),
      'scheduled_for',
    );
    // A draft's time is not a schedule yet; moving it to scheduled with that time is.
    const draft = await makeContent(bed.runtime, bed.ws.workspace, { ...POST, scheduled_for: AN_HOUR_AGO });
    expect(draft.scheduled_for).toBe(AN_HOUR_AGO);
    expectFieldError(
      await call(bed.server, 'PATCH', `/api/v1/content/${draft.id}`, {
        headers: bed.ws.headers,
        body: { status: 'scheduled' },
      }),
      'scheduled_for',
    );

    const skewed = await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
      headers: bed.ws.headers,
      body: { scheduled_for: FOUR_MINUTES_AGO },
    });
    expect(skewed.status).toBe(200);
    expect(skewed.body).toMatchObject({ status: 'scheduled', scheduled_for: FOUR_MINUTES_AGO });
  });

  it('publish with a past scheduled_for (within the range) still publishes now, as the contract says', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, POST);
    const res = await call(bed.server, 'POST', `/api/v1/content/${item.id}/publish`, {
      headers: bed.ws.headers,
      body: { scheduled_for: AN_HOUR_AGO },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'approved', publish_queued: true });
  });
});
