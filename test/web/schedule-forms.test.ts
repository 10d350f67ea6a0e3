import { describe, expect, it } from 'vitest';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { makeContent } from '../helpers/factories.ts';
import { Browser } from '../helpers/form-browser.ts';
import { call, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { connectAccounts, sandboxPostsFor } from '../helpers/publishing.ts';

const LATER = '2026-03-10T13:00:00.000Z';
const POST = { caption: 'Spring', content_type: 'text_only', target_platforms: ['linkedin'] };

async function approverBrowser(bed: RestTestbed) {
  const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
  const browser = new Browser(bed);
  await browser.signIn(person.email, person.password);
  return { person, browser };
}

describe("dashboard: the reschedule and move forms keep to the service's times", () => {
  const bed = useRestTestbed();
  const itemOf = async (id: string) =>
    (await call(bed.server, 'GET', `/api/v1/content/${id}`, { headers: bed.ws.headers })).body;

  it('rescheduling to the year 0000 or to a time already past is a 400 page; nothing moves or is posted', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['linkedin']);
    const item = await makeContent(bed.runtime, bed.ws.workspace, { ...POST, status: 'approved' });
    const { browser } = await approverBrowser(bed);
    await browser.open(`/app/content/${item.id}`);
    for (const [time, says] of [
      ['0000-01-01T00:00', /year 2000 to the year 9999/],
      ['2026-03-09T12:00', /has passed/],
    ] as const) {
      const refused = await browser.post(`/app/content/${item.id}/schedule`, { scheduled_for: time });
      expect(refused.status).toBe(400);
      expect(refused.text).toMatch(says);
    }
    expect(await itemOf(item.id)).toMatchObject({ status: 'approved', scheduled_for: null });
    expect(await drain(bed.runtime, publishingJob(bed.runtime))).toEqual([]);
    expect(await sandboxPostsFor(bed.runtime, item.id)).toEqual([]);
  });

  it('moving to the day 0000-01-01, a past day or a day the calendar lacks is a 400 page; the time stays', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      ...POST,
      status: 'scheduled',
      scheduled_for: LATER,
    });
    const { browser } = await approverBrowser(bed);
    await browser.open('/app/calendar?month=2026-03');
    for (const day of ['0000-01-01', '2026-03-01', '2026-02-31', '2026-13-01']) {
      const refused = await browser.post(`/app/content/${item.id}/move`, { day });
      expect(refused.status, day).toBe(400);
    }
    expect((await itemOf(item.id)).scheduled_for).toBe(LATER);
    const moved = await browser.post(`/app/content/${item.id}/move`, { day: '2026-03-12' });
    expect(moved.status).toBe(303);
    expect((await itemOf(item.id)).scheduled_for).toBe('2026-03-12T13:00:00.000Z');
  });

  it("with approver_must_differ on, the author's own Approve and Schedule are refused 403", async () => {
    await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { approver_must_differ: true } });
    const { person, browser } = await approverBrowser(bed);
    const { accessToken } = await issueTestToken(
      bed.runtime,
      bed.ws.workspace.id,
      ['read', 'write'],
      'Drafts',
      person.userId,
    );
    const own = await call(bed.server, 'POST', '/api/v1/content', {
      headers: { authorization: `Bearer ${accessToken}` },
      body: { ...POST, status: 'pending_review' },
    });
    await browser.open(`/app/content/${own.body.id}`);
    const approve = await browser.post(`/app/content/${own.body.id}/approve`, {});
    expect(approve.status).toBe(403);
    // Approved by the workspace's key, it is still the author's own to schedule: that approves it again.
    await call(bed.server, 'PATCH', `/api/v1/content/${own.body.id}`, {
      headers: bed.ws.headers,
      body: { status: 'approved' },
    });
    const reschedule = await browser.post(`/app/content/${own.body.id}/schedule`, {
      scheduled_for: '2026-03-10T13:00',
    });
    expect(reschedule.status).toBe(403);
    expect(reschedule.text).toMatch(/differ from the author/);
    expect(await itemOf(own.body.id)).toMatchObject({ status: 'approved', scheduled_for: null });
  });
});
