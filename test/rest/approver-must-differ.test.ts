import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { call, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { connectAccounts, sandboxPostsFor } from '../helpers/publishing.ts';
import { baseEnv, contentRow, expectError } from '../helpers/rest-expect.ts';

/** An hour after the test clock's start: a time to schedule for. */
const LATER = '2026-03-10T13:00:00.000Z';
const POST = { caption: 'Our spring launch', content_type: 'text_only', target_platforms: ['linkedin'] };

/** A person of the bed's workspace with `role`, and the headers of a grant bound to them (all three scopes). */
async function personWith(bed: RestTestbed, role: Role) {
  const person = await makePerson(bed.runtime, bed.ws.workspace.id, role);
  const { accessToken } = await issueTestToken(
    bed.runtime,
    bed.ws.workspace.id,
    ['read', 'write', 'publish'],
    role,
    person.userId,
  );
  return { ...person, headers: { authorization: `Bearer ${accessToken}` } };
}

const setApproverMustDiffer = async (bed: RestTestbed, on: boolean) =>
  expect(
    (await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { approver_must_differ: on } }))
      .body.approver_must_differ,
  ).toBe(on);

/** Runs the publishing run over everything due an hour and a minute from the start. */
async function publishDue(bed: RestTestbed) {
  bed.runtime.clock.advance(61 * 60_000);
  return drain(bed.runtime, publishingJob(bed.runtime));
}

describe('REST: approver_must_differ holds on every way into approved or scheduled', () => {
  const bed = useRestTestbed({ env: baseEnv });

  it('an author cannot create their item as approved or scheduled; nothing is created, and nothing is posted', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['linkedin']);
    await setApproverMustDiffer(bed, true);
    const author = await personWith(bed, 'approver');
    for (const body of [
      { ...POST, status: 'approved' },
      { ...POST, status: 'scheduled', scheduled_for: LATER },
    ]) {
      const refused = await call(bed.server, 'POST', '/api/v1/content', { headers: author.headers, body });
      expectError(refused, 403, 'forbidden');
      expect(refused.body.error.message).toMatch(/differ from the author/);
    }
    const listed = await call(bed.server, 'GET', '/api/v1/content', { headers: bed.ws.headers });
    expect(listed.body.data).toEqual([]);
    expect(await publishDue(bed)).toEqual([]);
  });

  it('an author cannot PATCH their item straight to scheduled, nor schedule it once another approved it', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['linkedin']);
    await setApproverMustDiffer(bed, true);
    const author = await personWith(bed, 'approver');
    const other = await personWith(bed, 'approver');
    const created = await call(bed.server, 'POST', '/api/v1/content', {
      headers: author.headers,
      body: { ...POST, status: 'pending_review' },
    });
    const id = created.body.id;
    const straight = await call(bed.server, 'PATCH', `/api/v1/content/${id}`, {
      headers: author.headers,
      body: { status: 'scheduled', scheduled_for: LATER },
    });
    expectError(straight, 403, 'forbidden');
    expect((await call(bed.server, 'GET', `/api/v1/content/${id}`, { headers: bed.ws.headers })).body).toMatchObject({
      status: 'pending_review',
      scheduled_for: null,
      publish_queued: false,
    });

    // Approved by someone else, it is still the author's own to schedule: scheduling approves it again.
    const approved = await call(bed.server, 'PATCH', `/api/v1/content/${id}`, {
      headers: other.headers,
      body: { status: 'approved' },
    });
    expect(approved.status).toBe(200);
    const scheduled = await call(bed.server, 'PATCH', `/api/v1/content/${id}`, {
      headers: author.headers,
      body: { status: 'scheduled', scheduled_for: LATER },
    });
    expectError(scheduled, 403, 'forbidden');
    expect(await publishDue(bed)).toEqual([]);
    expect(await sandboxPostsFor(bed.runtime, id)).toEqual([]);
  });

  it("an author cannot change what their approved item posts; another person's edit approves it anew", async () => {
    await setApproverMustDiffer(bed, true);
    const author = await personWith(bed, 'approver');
    const other = await personWith(bed, 'approver');
    const id = (
      await call(bed.server, 'POST', '/api/v1/content', {
        headers: author.headers,
        body: { ...POST, status: 'pending_review' },
      })
    ).body.id;
    await call(bed.server, 'PATCH', `/api/v1/content/${id}`, {
      headers: other.headers,
      body: { status: 'scheduled', scheduled_for: LATER },
    });
    for (const body of [
      { caption: 'Something nobody approved' },
      { target_platforms: ['linkedin', 'twitter'] },
      { status: 'scheduled', media_urls: ['https://cdn.example.test/a.png'] },
    ]) {
      expectError(
        await call(bed.server, 'PATCH', `/api/v1/content/${id}`, { headers: author.headers, body }),
        403,
        'forbidden',
      );
    }
    // A new time is not an approval; neither is taking the item back to review, after which they may edit it.
    const later = await call(bed.server, 'PATCH', `/api/v1/content/${id}`, {
      headers: author.headers,
      body: { scheduled_for: '2026-03-10T14:00:00.000Z' },
    });
    expect(later.body).toMatchObject({ status: 'scheduled', caption: POST.caption });
    expect((await contentRow(bed.runtime, id))!.approvedById).toBe(other.userId);
    const third = await personWith(bed, 'approver');
    const edited = await call(bed.server, 'PATCH', `/api/v1/content/${id}`, {
      headers: third.headers,
      body: { caption: 'Edited by a third person' },
    });
    expect(edited.status).toBe(200);
    expect((await contentRow(bed.runtime, id))!.approvedById).toBe(third.userId);
    await call(bed.server, 'PATCH', `/api/v1/content/${id}`, {
      headers: author.headers,
      body: { status: 'pending_review' },
    });
    expect(await contentRow(bed.runtime, id)).toMatchObject({ status: 'pending_review', approvedById: null });
    const reworked = await call(bed.server, 'PATCH', `/api/v1/content/${id}`, {
      headers: author.headers,
      body: { caption: 'Reworked for review' },
    });
    expect(reworked.status).toBe(200);
  });

  it('the publishing run refuses an item its author approved, with the reason, once the setting is on', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['linkedin']);
    const author = await personWith(bed, 'approver');
    // Scheduled by its author while the workspace allowed it; the setting comes on before it is due.
    const created = await call(bed.server, 'POST', '/api/v1/content', {
      headers: author.headers,
      body: { ...POST, status: 'scheduled', scheduled_for: LATER },
    });
    expect(created.status).toBe(201);
    await setApproverMustDiffer(bed, true);

    expect(await publishDue(bed)).toEqual([]);
    expect(await sandboxPostsFor(bed.runtime, created.body.id)).toEqual([]);
    const read = await call(bed.server, 'GET', `/api/v1/content/${created.body.id}`, { headers: bed.ws.headers });
    expect(read.body).toMatchObject({ status: 'approved', publish_queued: false, published_at: null });
    expect(read.body.publish_results).toEqual([
      expect.objectContaining({
        platform: 'linkedin',
        success: false,
        error: expect.stringMatching(/approver to differ from the author/),
      }),
    ]);
  });

  it('an item approved or published by a different person still publishes, and records who approved it', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['linkedin']);
    await setApproverMustDiffer(bed, true);
    const author = await personWith(bed, 'editor');
    const approver = await personWith(bed, 'approver');
    const make = async () =>
      (
        await call(bed.server, 'POST', '/api/v1/content', {
          headers: author.headers,
          body: { ...POST, status: 'pending_review' },
        })
      ).body.id as string;
    const scheduledId = await make();
    const publishedId = await make();

    const scheduled = await call(bed.server, 'PATCH', `/api/v1/content/${scheduledId}`, {
      headers: approver.headers,
      body: { status: 'scheduled', scheduled_for: LATER },
    });
    expect(scheduled.status).toBe(200);
    expect(await contentRow(bed.runtime, scheduledId)).toMatchObject({
      approvedByType: 'user',
      approvedById: approver.userId,
    });
    const queued = await call(bed.server, 'POST', `/api/v1/content/${publishedId}/publish`, {
      headers: approver.headers,
      body: {},
    });
    expect(queued.status).toBe(202);

    expect((await publishDue(bed)).sort()).toEqual(['published', 'published']);
    for (const id of [scheduledId, publishedId]) {
      expect(await sandboxPostsFor(bed.runtime, id)).toHaveLength(1);
      expect(await contentRow(bed.runtime, id)).toMatchObject({ status: 'published', approvedById: approver.userId });
    }
  });

  it('API keys are not people: a key creates an item as scheduled and it publishes', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['linkedin']);
    await setApproverMustDiffer(bed, true);
    const created = await call(bed.server, 'POST', '/api/v1/content', {
      headers: bed.ws.headers,
      body: { ...POST, status: 'scheduled', scheduled_for: LATER },
    });
    expect(created.status).toBe(201);
    expect(await contentRow(bed.runtime, created.body.id)).toMatchObject({
      approvedByType: 'api_key',
      approvedById: bed.ws.keyId,
    });
    expect(await publishDue(bed)).toEqual(['published']);
  });
});
