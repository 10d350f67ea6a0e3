import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { socialAccounts } from '../../db/schema/index.ts';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeX, type FakeX } from '../../fakes/x.ts';
import { spendAiCredits, usagePeriod } from '../../src/core/accounts/usage.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { enqueueAllEvents } from '../../src/core/webhooks/delivery/enqueue.ts';
import { drain } from '../../src/jobs/drain.ts';
import { webhookDeliveryJob } from '../../src/jobs/webhook-delivery.ts';
import { makeCampaign, makeContent } from '../helpers/factories.ts';
import { Browser } from '../helpers/form-browser.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/**
 * The dashboard shows a campaign's, a webhook's, a delivery's and an account's actions exactly when
 * the operation behind them accepts them: the pages render from the policies' allowed_actions.
 */
describe('dashboard: resource actions shown iff accepted', () => {
  let x: FakeX;
  const env: Record<string, string> = {
    ...baseEnv,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_TIMEOUT_MS: '500',
    WEBHOOK_RETRY_DELAYS: '1',
  };
  const bed = useRestTestbed({ env });
  let receiver: Receiver;
  beforeAll(async () => {
    x = await startFakeX({ now: () => (bed.runtime ? bed.runtime.clock.now().getTime() : Date.now()) });
    // Only X's app is configured: LinkedIn accounts cannot be reconnected here.
    Object.assign(env, fakePlatformEnvironment({ x }));
  });
  afterAll(() => x.close());
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  const signedIn = async (role: 'viewer' | 'editor' | 'approver' | 'admin') => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, role);
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    return browser;
  };
  const rest = (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });
  const accepted = (status: number) => status === 303;

  it('campaigns: Launch shows for a role and a state exactly when launching is accepted', async () => {
    for (const role of ['viewer', 'editor', 'approver', 'admin'] as const) {
      const browser = await signedIn(role);
      const draft = await makeCampaign(bed.runtime, bed.ws.workspace, { name: `Draft ${role}` });
      const active = await makeCampaign(bed.runtime, bed.ws.workspace, { name: `Active ${role}` }, { launch: true });
      const page = await browser.open('/app/campaigns');
      for (const campaign of [draft, active]) {
        const shown = page.text.includes(`aria-label="Launch ${campaign.name}"`);
        const answer = await browser.post(`/app/campaigns/${campaign.id}/launch`, {});
        expect(shown, `${role} ${campaign.name}`).toBe(accepted(answer.status));
      }
    }
    // With this month's AI credits spent, no campaign can launch, and none offers to.
    const approver = await signedIn('approver');
    const spent = await makeCampaign(bed.runtime, bed.ws.workspace, { name: 'Spent' });
    const now = bed.runtime.clock.now();
    await spendAiCredits(
      bed.runtime.db,
      bed.ws.workspace.id,
      usagePeriod(now),
      bed.ws.workspace.features.monthly_ai_credits,
    );
    const page = await approver.open('/app/campaigns');
    const answer = await approver.post(`/app/campaigns/${spent.id}/launch`, {});
    expect(accepted(answer.status)).toBe(false);
    expect(page.text).not.toContain('aria-label="Launch Spent"');
  });

  it('webhooks: the page offers every event REST accepts, campaign.paused included, and keeps it on edit', async () => {
    const admin = await signedIn('admin');
    const page = await admin.open('/app/webhooks');
    expect(page.text).toContain('name="events" value="campaign.paused"');
    const made = await admin.post('/app/webhooks', { url: `${receiver.url}/hook`, events: ['campaign.paused'] });
    expect(made.status).toBe(303);
    const listed = await rest('GET', '/api/v1/webhooks');
    const hook = listed.body.data[0];
    expect(hook.events).toEqual(['campaign.paused']);
    const again = await admin.open('/app/webhooks');
    expect(again.text).toContain('name="events" value="campaign.paused" checked');
  });

  it('webhooks: Enable, Disable, Re-enable and Resend show exactly when their operation accepts them', async () => {
    const admin = await signedIn('admin');
    receiver.respondWith({ status: 503 });
    const hook = (await rest('POST', '/api/v1/webhooks', { url: `${receiver.url}/hook` })).body;
    await makeContent(bed.runtime, bed.ws.workspace, { caption: 'one' });
    await enqueueAllEvents(bed.runtime);
    await drain(bed.runtime, webhookDeliveryJob(bed.runtime));
    // The first attempt failed and its retry is queued: resending it now is refused.
    const log = await admin.open(`/app/webhooks/${hook.id}`);
    const deliveries = (await rest('GET', `/api/v1/webhooks/${hook.id}/deliveries`)).body.data;
    expect(deliveries[0].status).toBe('pending_retry');
    const resendShown = log.text.includes(`/deliveries/${deliveries[0].id}/resend"`);
    const resend = await admin.post(`/app/webhooks/${hook.id}/deliveries/${deliveries[0].id}/resend`, {});
    expect(resendShown).toBe(accepted(resend.status));
    expect(resendShown).toBe(false);

    const shownOn = async (action: string) =>
      (await admin.open('/app/webhooks')).text.includes(`/${hook.id}/${action}"`);
    // Enabled: Disable only.
    expect([await shownOn('enable'), await shownOn('disable'), await shownOn('reenable')]).toEqual([
      false,
      true,
      false,
    ]);
    expect(accepted((await admin.post(`/app/webhooks/${hook.id}/reenable`, {})).status)).toBe(false);
    expect(accepted((await admin.post(`/app/webhooks/${hook.id}/disable`, {})).status)).toBe(true);
    // Disabled by hand: Enable, not Re-enable.
    expect([await shownOn('enable'), await shownOn('disable'), await shownOn('reenable')]).toEqual([
      true,
      false,
      false,
    ]);
    expect(accepted((await admin.post(`/app/webhooks/${hook.id}/reenable`, {})).status)).toBe(false);
    expect(accepted((await admin.post(`/app/webhooks/${hook.id}/enable`, {})).status)).toBe(true);
  });

  it('accounts: Reconnect shows exactly when reconnecting is accepted (state, mode and the platform app)', async () => {
    const admin = await signedIn('admin');
    const account = async (platform: 'twitter' | 'linkedin', username: string, fields: Record<string, unknown>) => {
      const made = await connectSocialAccount(bed.runtime, { workspaceId: bed.ws.workspace.id, platform, username });
      await bed.runtime.db.update(socialAccounts).set(fields).where(eq(socialAccounts.id, made.id)).run();
      return made;
    };
    const cases = [
      await account('twitter', 'needs', { mode: 'live', status: 'needs_reconnect' }),
      await account('twitter', 'fine', { mode: 'live', status: 'active' }),
      await account('twitter', 'sandboxed', { status: 'needs_reconnect' }),
      // LinkedIn's app is not configured in this service: no consent page to send anyone to.
      await account('linkedin', 'unconfigured', { mode: 'live', status: 'needs_reconnect' }),
    ];
    const page = await admin.open('/app/accounts');
    const shown = cases.map((one) => new RegExp(`aria-label="Reconnect [^"]*${one.username}`).test(page.text));
    expect(shown).toEqual([true, false, false, false]);
    for (const [i, one] of cases.entries()) {
      const answer = await admin.post(`/app/accounts/${one.id}/reconnect`, {});
      expect(accepted(answer.status), one.username).toBe(shown[i]);
    }
  });
});
