import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeBluesky, type FakeBluesky } from '../../fakes/bluesky.ts';
import { startFakeX, type FakeX } from '../../fakes/x.ts';
import { makeCampaign } from '../helpers/factories.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { socialAccounts } from '../../db/schema/index.ts';
import { encodeCursor } from '../../src/core/pagination.ts';
import { enqueueAllEvents } from '../../src/core/webhooks/delivery/enqueue.ts';
import { drain } from '../../src/jobs/drain.ts';
import { webhookDeliveryJob } from '../../src/jobs/webhook-delivery.ts';
import { makeContent } from '../helpers/factories.ts';
import { Browser } from '../helpers/form-browser.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/webhook-receiver.ts';
import { eq, sql } from 'drizzle-orm';

const ADMIN_PAGES = ['/app/accounts', '/app/webhooks', '/app/keys', '/app/members'];

/** The admin pages over HTTP, without JavaScript: what issue 29's acceptance asks that needs no browser. */
describe('dashboard admin pages', () => {
  let x: FakeX;
  let bluesky: FakeBluesky;
  const env: Record<string, string> = {
    ...baseEnv,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_TIMEOUT_MS: '500',
    // One retry a second after the first attempt: two failures and a delivery has failed for good.
    WEBHOOK_RETRY_DELAYS: '1',
  };
  const bed = useRestTestbed({ env });
  let receiver: Receiver;
  beforeAll(async () => {
    x = await startFakeX({ now: () => (bed.runtime ? bed.runtime.clock.now().getTime() : Date.now()) });
    bluesky = await startFakeBluesky({ now: () => (bed.runtime ? bed.runtime.clock.now().getTime() : Date.now()) });
    Object.assign(env, fakePlatformEnvironment({ x, bluesky }));
  });
  afterAll(async () => {
    await x.close();
    await bluesky.close();
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  const signedIn = async (role: 'viewer' | 'editor' | 'approver' | 'admin' = 'admin') => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, role);
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    return Object.assign(browser, { person });
  };
  const rest = (method: string, path: string, headers = bed.ws.headers, body?: unknown) =>
    call(bed.server, method, path, { headers, body });
  const deliverAll = async () => {
    await enqueueAllEvents(bed.runtime);
    await drain(bed.runtime, webhookDeliveryJob(bed.runtime));
  };
  /** standardwebhooks checks the timestamp against the wall clock: verify at the runtime's time. */
  const verify = (secret: string, request: ReceivedRequest) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(bed.runtime.clock.now());
    try {
      return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    } finally {
      vi.useRealTimers();
    }
  };

  it('every admin page and admin action answers 403 to a viewer, an editor and an approver', async () => {
    const hook = await rest('POST', '/api/v1/webhooks', bed.ws.headers, { url: `${receiver.url}/hook` });
    for (const role of ['viewer', 'editor', 'approver'] as const) {
      const browser = await signedIn(role);
      for (const path of ADMIN_PAGES) expect((await browser.get(path)).status, `${role} ${path}`).toBe(403);
      expect((await browser.get(`/app/webhooks/${hook.body.id}`)).status).toBe(403);
      const home = await browser.open('/app');
      expect(home.status).toBe(200);
      expect(home.text).not.toContain('href="/app/keys"');
      for (const [path, fields] of [
        ['/app/keys', { name: 'sneaky' }],
        ['/app/members/invite', { email: 'x@example.com', role: 'admin' }],
        ['/app/webhooks', { url: `${receiver.url}/hook` }],
        [`/app/webhooks/${hook.body.id}/rotate`, {}],
        ['/app/accounts/connect', { platform: 'twitter' }],
      ] as const) {
        expect((await browser.post(path, fields)).status, `${role} POST ${path}`).toBe(403);
      }
    }
    expect((await rest('GET', '/api/v1/webhooks')).body.data).toHaveLength(1);
    const keys = (await bed.runtime.db.get(sql`select count(*) as n from api_keys`)) as { n: number };
    expect(keys.n).toBe(1);
  });

  it('keys: a key made on the page is shown once, works on REST, and answers 401 as soon as it is revoked', async () => {
    const admin = await signedIn();
    const made = await admin.post('/app/keys', { name: 'Zapier' });
    expect(made.status, made.text).toBe(303);
    const shown = await admin.open(Browser.pathOf(made.location));
    const key = /value="(np_live_[0-9A-Za-z]+)"/.exec(shown.text)?.[1];
    expect(key, shown.text).toBeDefined();
    expect(shown.text).toContain('shown this once');
    const again = await admin.open('/app/keys');
    expect(again.text).not.toContain(key);
    expect(again.text).not.toContain(bed.ws.apiKey);
    expect(again.text).toContain(`np_live_…${key!.slice(-4)}`);
    expect(again.text).toContain('Zapier');

    const auth = { authorization: `Bearer ${key}` };
    expect((await rest('GET', '/api/v1/me', auth)).status).toBe(200);
    const row = /<td>Zapier<\/td><td><code>[^<]*<\/code><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td>/.exec(
      (await admin.open('/app/keys')).text,
    );
    // Last used: just now, when it was also created.
    expect(row?.[2]).toBe(row?.[1]);
    expect(row?.[2]).not.toBe('Never');
    const keyId = (await bed.runtime.db.get(sql`select id from api_keys where name = 'Zapier'`)) as { id: string };
    const confirm = await admin.open(`/app/keys/${keyId.id}/revoke`);
    expect(confirm.text).toContain('>Revoke</button>');
    expect((await admin.post(`/app/keys/${keyId.id}/revoke`, {})).status).toBe(303);
    const refused = await rest('GET', '/api/v1/me', auth);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_key');
    expect((await admin.open('/app/keys')).text).toContain('Revoked');
    // Keys and members are managed here and in the CLI only, never on the public API.
    for (const path of ['/api/v1/keys', '/api/v1/api-keys', '/api/v1/members', '/api/v1/users']) {
      expect((await rest('GET', path)).status, path).toBe(404);
    }
  });

  it('members: an invite link lets a new person set a password and sign in with the role; the last admin stays', async () => {
    const admin = await signedIn();
    const invited = await admin.post('/app/members/invite', { email: 'new.editor@example.com', role: 'editor' });
    expect(invited.status, invited.text).toBe(303);
    const page = await admin.open('/app/members');
    const link = /value="(https?:\/\/[^"]+\/app\/invite\?token=[^"]+)"/.exec(page.text)?.[1];
    expect(link, page.text).toBeDefined();
    expect(page.text).toContain('Pending invites');
    expect((await admin.open('/app/members')).text).not.toContain(link!);

    const newcomer = new Browser(bed);
    const form = await newcomer.open(Browser.pathOf(link!.replace(/&amp;/g, '&')));
    expect(form.status).toBe(200);
    const token = new URL(link!).searchParams.get('token')!;
    const set = await newcomer.post('/app/invite', { token, password: 'a fine new password' });
    expect(set.status, set.text).toBe(303);
    const home = await newcomer.open('/app');
    expect(home.text).toContain('new.editor@example.com · editor in');

    // The only admin with a password can be neither demoted nor removed.
    const me = admin.person.userId;
    const demote = await admin.post(`/app/members/${me}/role`, { role: 'viewer' });
    expect(demote.status).toBe(409);
    expect(demote.text).toContain('last admin');
    expect((await admin.post(`/app/members/${me}/remove`, {})).status).toBe(409);
    // With a second admin, the first may step down.
    const editorId = (
      (await bed.runtime.db.get(sql`select id from users where email = ${'new.editor@example.com'}`)) as {
        id: string;
      }
    ).id;
    expect((await admin.post(`/app/members/${editorId}/role`, { role: 'admin' })).status).toBe(303);
    expect((await admin.post(`/app/members/${me}/role`, { role: 'approver' })).status).toBe(303);
    expect((await admin.get('/app/keys')).status).toBe(403);
  });

  it('members: a pending invite can be withdrawn, and its link then fails', async () => {
    const admin = await signedIn();
    await admin.post('/app/members/invite', { email: 'maybe@example.com', role: 'viewer' });
    const link = /value="(https?:\/\/[^"]+\/app\/invite\?token=[^"]+)"/.exec(
      (await admin.open('/app/members')).text,
    )![1]!;
    // Invited is not a member: no account is made for the email until the invitation is accepted.
    expect(await bed.runtime.db.get(sql`select id from users where email = ${'maybe@example.com'}`)).toBe(undefined);
    const withdraw = /action="(\/app\/members\/[^/"]+\/withdraw)"/.exec((await admin.open('/app/members')).text)![1]!;
    expect((await admin.post(withdraw, {})).status).toBe(303);
    const after = await admin.open('/app/members');
    expect(after.text).toContain('No invites are waiting.');
    expect(after.text).not.toContain('maybe@example.com');
    expect((await new Browser(bed).get(Browser.pathOf(link))).status).toBe(404);
  });

  it('webhooks: the secret is shown once and signs deliveries; 500s show in the log; Resend delivers the same event with a 200', async () => {
    const admin = await signedIn();
    const created = await admin.post('/app/webhooks', { url: `${receiver.url}/hook`, events: 'content.created' });
    expect(created.status, created.text).toBe(303);
    const page = await admin.open('/app/webhooks');
    const secret = /value="(whsec_[^"]+)"/.exec(page.text)?.[1];
    expect(secret, page.text).toBeDefined();
    expect(page.text).toContain('shown this once');
    expect((await admin.open('/app/webhooks')).text).not.toContain('whsec_');
    const hookId = (await rest('GET', '/api/v1/webhooks')).body.data[0].id as string;

    receiver.respondWith({ status: 500, body: 'receiver down' });
    const item = await makeContent(bed.runtime, bed.ws.workspace, { caption: 'Hello hooks' });
    await deliverAll();
    expect(receiver.requests).toHaveLength(1);
    expect(verify(secret!, receiver.requests[0]!)).toMatchObject({
      type: 'content.created',
      data: { content: { id: item.id } },
    });
    bed.runtime.clock.advance(1000);
    await deliverAll();

    const log = await admin.open(`/app/webhooks/${hookId}?status=failed`);
    expect(log.text).toContain('<td>500</td>');
    expect(log.text).toContain('receiver down');
    const deliveryId = /action="\/app\/webhooks\/[^/]+\/deliveries\/([^/]+)\/resend"/.exec(log.text)?.[1];
    expect(deliveryId).toBeDefined();

    receiver.respondWith({ status: 200 });
    const resent = await admin.post(`/app/webhooks/${hookId}/deliveries/${deliveryId}/resend`, {});
    expect(resent.status, resent.text).toBe(303);
    await deliverAll();
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    expect(ids).toHaveLength(3);
    const delivered = await admin.open(`/app/webhooks/${hookId}?status=delivered`);
    expect(delivered.text).toContain('<td>200</td>');
    expect(delivered.text).toContain(ids[0] as string);
  });

  it('webhooks: an auto-disabled endpoint shows the banner; Re-enable and Resend failed since… deliver the failed events', async () => {
    const admin = await signedIn();
    receiver.respondWith({ status: 503 });
    const hook = await rest('POST', '/api/v1/webhooks', bed.ws.headers, { url: `${receiver.url}/hook` });
    const since = bed.runtime.clock.now();
    for (const caption of ['one', 'two', 'three']) {
      await makeContent(bed.runtime, bed.ws.workspace, { caption });
      await deliverAll();
      bed.runtime.clock.advance(1000);
      await deliverAll();
    }
    expect((await rest('GET', `/api/v1/webhooks/${hook.body.id}`)).body.is_enabled).toBe(false);
    const page = await admin.open('/app/webhooks');
    expect(page.text).toContain('class="banner" role="alert"');
    expect(page.text).toContain('deliveries failed within an hour; the last time it answered 503');
    expect(page.text).toContain('>Re-enable</button>');

    receiver.respondWith({ status: 200 });
    receiver.requests.length = 0;
    const enabled = await admin.post(`/app/webhooks/${hook.body.id}/enable`, { back: `/app/webhooks/${hook.body.id}` });
    expect(enabled.status).toBe(303);
    const sinceLocal = since.toISOString().slice(0, 16); // The workspace's timezone is UTC.
    const resend = await admin.post(`/app/webhooks/${hook.body.id}/resend-failed`, { since: sinceLocal });
    expect(resend.status, resend.text).toBe(303);
    expect(resend.location).toMatch(/queued=\d+$/);
    await deliverAll();
    const failedEvents = (
      await bed.runtime.db.all(sql`select distinct event_id from webhook_deliveries where status = 'failed'`)
    ).map((r) => (r as { event_id: string }).event_id);
    expect(failedEvents.length).toBeGreaterThan(0);
    const received = receiver.requests.map((r) => r.headers['webhook-id']);
    for (const id of failedEvents) expect(received).toContain(id);
    const after = await admin.open('/app/webhooks');
    expect(after.text).not.toContain('class="banner"');
    expect(after.text).toContain('Enabled');
  });

  it('accounts: "Connect X" through the fake consent page lands back on /app/accounts with the account Active', async () => {
    const admin = await signedIn();
    const page = await admin.open('/app/accounts');
    expect(page.text).toContain('>Connect X</button>');
    // Unconfigured platforms name their variables.
    expect(page.text).toMatch(/LinkedIn: not configured\. The operator sets <code>LINKEDIN_CLIENT_ID<\/code>/);

    const started = await admin.post('/app/accounts/connect', { platform: 'twitter' });
    expect(started.status, started.text).toBe(303);
    const consent = await fetch(started.location!, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = await admin.get(Browser.pathOf(consent.headers.get('location')));
    expect(back.status, back.text).toBe(303);
    const landing = Browser.pathOf(back.location);
    expect(landing).toMatch(/^\/app\/accounts\?platform=twitter&social_account_id=/);
    const accounts = await admin.open(landing);
    expect(accounts.text).toContain(`@${x.users[0]!.username}`);
    expect(accounts.text).toContain('<strong>Active</strong>');
    expect(accounts.text).toContain('Connected 1 account.');
  });

  it('accounts: "Connect Bluesky" signs in with an app password; a wrong one stores nothing and the password is not kept', async () => {
    const admin = await signedIn();
    const page = await admin.open('/app/accounts');
    expect(page.text).toContain('<h3 id="connect-bluesky">Connect Bluesky</h3>');
    const [account] = bluesky.accounts;

    const refused = await admin.post('/app/accounts/connect-credentials', {
      platform: 'bluesky',
      identifier: account!.handle,
      app_password: 'wrong-pass-word-here',
    });
    expect(refused.status).toBe(422);
    expect(refused.text).not.toContain('wrong-pass-word-here');
    expect(await bed.runtime.db.select().from(socialAccounts).all()).toEqual([]);

    const connected = await admin.post('/app/accounts/connect-credentials', {
      platform: 'bluesky',
      identifier: account!.handle,
      app_password: account!.appPassword,
    });
    expect(connected.status, connected.text).toBe(303);
    const accounts = await admin.open(Browser.pathOf(connected.location));
    expect(accounts.text).toContain(`@${account!.handle}`);
    expect(accounts.text).toContain('<strong>Active</strong>');
    const stored = JSON.stringify(await bed.runtime.db.select().from(socialAccounts).all());
    expect(stored).not.toContain(account!.appPassword);
  });

  it('accounts: a dashboard-started connection opened in another browser still asks for confirmation', async () => {
    const admin = await signedIn();
    const started = await admin.post('/app/accounts/connect', { platform: 'twitter' });
    const consent = await fetch(started.location!, { redirect: 'manual' });
    const elsewhere = new Browser(bed);
    const page = await elsewhere.get(Browser.pathOf(consent.headers.get('location')));
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="confirmation"');
    expect(await bed.runtime.db.select().from(socialAccounts).all()).toEqual([]);
  });

  it('accounts: Disconnect asks first, then marks the account disconnected; Reconnect shows on accounts that need it', async () => {
    const admin = await signedIn();
    const account = await connectSocialAccount(bed.runtime, {
      workspaceId: bed.ws.workspace.id,
      platform: 'twitter',
      username: 'sandboxed',
    });
    const confirm = await admin.open(`/app/accounts/${account.id}/disconnect`);
    expect(confirm.text).toContain('Disconnect @sandboxed on X?');
    expect((await admin.post(`/app/accounts/${account.id}/disconnect`, {})).status).toBe(303);
    expect((await rest('GET', '/api/v1/social-accounts')).body.data[0].status).toBe('disconnected');

    await bed.runtime.db
      .update(socialAccounts)
      .set({ mode: 'live', status: 'needs_reconnect' })
      .where(eq(socialAccounts.id, account.id))
      .run();
    const page = await admin.open('/app/accounts');
    expect(page.text).toContain('<strong>Needs reconnect</strong>');
    expect(page.text).toContain('>Reconnect</button>');
  });

  it('home: the counts match the REST lists behind them, with the next scheduled posts and usage', async () => {
    const viewer = await signedIn('viewer');
    const now = bed.runtime.clock.now().getTime();
    for (let i = 0; i < 3; i++) await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    for (const days of [1, 2, 6, 9]) {
      await makeContent(bed.runtime, bed.ws.workspace, {
        caption: `In ${days} days`,
        status: 'scheduled',
        scheduled_for: new Date(now + days * 86_400_000).toISOString(),
        target_platforms: ['twitter'],
      });
    }
    const pending = await rest('GET', '/api/v1/content?status=pending_review&limit=100');
    const from = new Date(now).toISOString();
    const to = new Date(now + 7 * 86_400_000).toISOString();
    const week = await rest('GET', `/api/v1/content?status=scheduled&scheduled_from=${from}&scheduled_to=${to}`);
    const page = await viewer.open('/app');
    expect(page.status).toBe(200);
    const count = (label: string) =>
      Number(new RegExp(`<span class="n">(\\d+)</span> ${label.replace(/[()]/g, '\\$&')}`).exec(page.text)?.[1]);
    expect(count('Awaiting approval')).toBe(pending.body.data.length);
    expect(count('Scheduled (next 7 days)')).toBe(week.body.data.length);
    expect(count('Scheduled (next 7 days)')).toBe(3);
    expect(count('Accounts to reconnect')).toBe(0);
    expect(count('Disabled webhooks')).toBe(0);
    expect(page.text.indexOf('In 1 days')).toBeLessThan(page.text.indexOf('In 9 days'));
    const me = await rest('GET', '/api/v1/me');
    expect(page.text).toContain(
      `<td>AI credits</td><td>${me.body.usage.ai_credits_used}</td><td>${me.body.features.monthly_ai_credits}</td>`,
    );
  });

  it('campaigns: progress and drafts link for all; Launch for approvers shows quota and credits first', async () => {
    const campaign = await makeCampaign(bed.runtime, bed.ws.workspace, { name: 'Spring' });
    const viewer = await signedIn('viewer');
    const seen = await viewer.open('/app/campaigns');
    expect(seen.text).toContain('0 of ');
    expect(seen.text).toContain(`/app/inbox?campaign=${campaign.id}`);
    expect(seen.text).not.toContain('>Launch</a>');
    const approver = await signedIn('approver');
    const list = await approver.open('/app/campaigns');
    expect(list.text).toContain('>Launch</a>');
    const preview = await approver.open(`/app/campaigns/${campaign.id}/launch`);
    expect(preview.text).toContain('AI credits');
    expect(preview.text).toContain('<td>Posts</td>');
    expect((await approver.post(`/app/campaigns/${campaign.id}/launch`, {})).status).toBe(303);
    expect((await rest('GET', `/api/v1/campaigns/${campaign.id}`)).body.status).toBe('active');
  });

  it('campaigns: a page past the last one says so, not that there are no campaigns', async () => {
    await makeCampaign(bed.runtime, bed.ws.workspace, { name: 'Autumn' });
    const viewer = await signedIn('viewer');
    const past = encodeCursor({ createdAt: new Date(0), id: '0' });
    const page = await viewer.open(`/app/campaigns?cursor=${encodeURIComponent(past)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('No more campaigns: this is past the last page.');
    expect(page.text).not.toContain('No campaigns yet');
    expect(page.text).toContain('First page');
  });
});
