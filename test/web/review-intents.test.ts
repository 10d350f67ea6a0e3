import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeX, type FakeX } from '../../fakes/x.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { connectFakeXAccount } from '../helpers/fake-x-account.ts';
import { Browser } from '../helpers/form-browser.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';

/**
 * The dashboard's review forms are the content intents: "Approve and schedule" leads to one post at
 * the fake X at the item's time, "Approve and publish now" to one on the next publishing run, and an
 * author under approver_must_differ is offered no approval anywhere, with the policy's reason.
 */
const env: Record<string, string> = {};
let x: FakeX;
beforeAll(async () => {
  x = await startFakeX();
  Object.assign(env, fakePlatformEnvironment({ x }));
});
afterAll(() => x?.close());

/** A form's button, as the page renders it (its words between the tags). */
const button = (words: string) => new RegExp(`>${words.replace(/[()]/g, '\\$&')}</button>`);
const APPROVE_BUTTON = />Approve[^<]*<\/button>/;

describe('dashboard: approving leads to a publish', () => {
  const bed = useRestTestbed({ env });
  const publishRun = () => drain(bed.runtime, publishingJob(bed.runtime));
  const postsWith = (caption: string) => x.posts.filter((post) => post.text === caption);

  async function approver() {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    return browser;
  }

  const createPending = async (caption: string, scheduledFor?: string) =>
    (
      await call(bed.server, 'POST', '/api/v1/content', {
        headers: bed.ws.headers,
        body: {
          caption,
          content_type: 'text_only',
          target_platforms: ['twitter'],
          status: 'pending_review',
          ...(scheduledFor ? { scheduled_for: scheduledFor } : {}),
        },
      })
    ).body;

  it('"Approve and schedule for …" on an item planned a minute ahead posts once to X, at that time', async () => {
    await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { timezone: 'Europe/Paris' } });
    await connectFakeXAccount(bed.runtime, bed.ws.workspace, x);
    const at = new Date(bed.runtime.clock.now().getTime() + 60_000);
    const caption = `A minute ahead ${crypto.randomUUID()}`;
    const item = await createPending(caption, at.toISOString());
    const browser = await approver();
    const page = (await browser.open(`/app/content/${item.id}`)).text;
    // TEST_START is Tuesday 10 March 2026, 12:00:30Z: 13:01 in Paris.
    expect(page).toMatch(button('Approve and schedule for Tue 10 Mar, 13:01 (Europe/Paris)'));
    expect(page).not.toMatch(button('Approve only'));
    const done = await browser.post(`/app/content/${item.id}/approve`, {
      then: 'schedule',
      back: `/app/content/${item.id}`,
    });
    expect(done.status).toBe(303);
    expect(await publishRun()).toEqual([]);
    expect(postsWith(caption)).toHaveLength(0);
    bed.runtime.clock.advance(60_000);
    expect(await publishRun()).toEqual(['published']);
    expect(await publishRun()).toEqual([]);
    expect(postsWith(caption)).toHaveLength(1);
  });

  it('"Approve and publish now" posts on the next publishing run; "Approve only" reads "Approved, not scheduled"', async () => {
    await connectFakeXAccount(bed.runtime, bed.ws.workspace, x);
    const caption = `Right away ${crypto.randomUUID()}`;
    const item = await createPending(caption);
    const browser = await approver();
    const page = (await browser.open(`/app/content/${item.id}`)).text;
    expect(page).toMatch(button('Approve and publish now'));
    expect(page).toMatch(button('Approve only'));
    await browser.post(`/app/content/${item.id}/approve`, { then: 'publish_now' });
    expect(await publishRun()).toEqual(['published']);
    expect(postsWith(caption)).toHaveLength(1);

    const waiting = await createPending(`Later ${crypto.randomUUID()}`);
    await browser.post(`/app/content/${waiting.id}/approve`, { then: 'none' });
    const approved = (await browser.open(`/app/content/${waiting.id}`)).text;
    expect(approved).toContain('Approved, not scheduled');
    expect(approved).toMatch(button('Schedule'));
    expect(approved).toMatch(button('Publish now'));
    expect(await publishRun()).toEqual([]);
  });

  it('the author under approver_must_differ sees no Approve button anywhere, and the page says why', async () => {
    await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { approver_must_differ: true } });
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const { accessToken } = await issueTestToken(
      bed.runtime,
      bed.ws.workspace.id,
      ['read', 'write'],
      'Drafts',
      person.userId,
    );
    const at = new Date(bed.runtime.clock.now().getTime() + 3_600_000).toISOString();
    const own = await call(bed.server, 'POST', '/api/v1/content', {
      headers: { authorization: `Bearer ${accessToken}` },
      body: { caption: 'My own post', target_platforms: ['twitter'], status: 'pending_review', scheduled_for: at },
    });
    expect(own.status).toBe(201);
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    const itemPage = (await browser.open(`/app/content/${own.body.id}`)).text;
    expect(itemPage).not.toMatch(APPROVE_BUTTON);
    expect(itemPage).toContain('This workspace requires the approver to differ from the author');
    expect(itemPage).toMatch(button('Reject'));
    for (const path of ['/app/inbox', '/app/content', '/app/content?status=pending_review']) {
      const list = (await browser.open(path)).text;
      expect(list, path).toContain('My own post');
      expect(list, path).not.toMatch(APPROVE_BUTTON);
      expect(list, path).toContain('differ from the author');
    }
    // The calendar offers no approval either (it only moves scheduled items).
    const calendar = (await browser.open('/app/calendar?month=2026-03')).text;
    expect(calendar).not.toMatch(APPROVE_BUTTON);
    // Someone else is offered it.
    const other = await approver();
    expect((await other.open(`/app/content/${own.body.id}`)).text).toMatch(/>Approve and schedule for [^<]+<\/button>/);
  });
});
