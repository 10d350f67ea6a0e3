import { asc, eq } from 'drizzle-orm';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { webhookDeliveries, webhookJobs, webhooks } from '../../../db/schema/index.ts';
import { deleteContent } from '../../../src/core/content/operations.ts';
import { contextFor } from '../../../src/core/context.ts';
import { runOperation } from '../../../src/core/operation.ts';
import { connectorsFor } from '../../../src/core/publishing/connectors/index.ts';
import { handlePlatformCallback } from '../../../src/core/social-accounts/deauthorization.ts';
import { platformAccountsOf } from '../../../src/core/social-accounts/operations.ts';
import { claimDueDeliveries, handOut, nextDeliveryDueAfter } from '../../../src/core/webhooks/delivery/claim.ts';
import { queuesOf, releaseIfIdle, takeOver } from '../../../src/core/webhooks/delivery/lease.ts';
import { deliver } from '../../../src/core/webhooks/delivery/deliver.ts';
import { enqueueAllEvents } from '../../../src/core/webhooks/delivery/enqueue.ts';
import { rotateWebhookSecret, testWebhook, updateWebhook } from '../../../src/core/webhooks/operations.ts';
import { makeContent, makeWebhook, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { connectAccounts, publish, update } from '../../helpers/publishing.ts';
import { runMaintenance } from '../../../src/jobs/maintenance.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { signedRequest } from '../../helpers/signed-request.ts';
import { tempDataDir } from '../../helpers/subprocess.ts';
import { startReceiver, type ReceivedRequest, type Receiver } from '../../helpers/webhook-receiver.ts';
import { drain } from '../../../src/jobs/drain.ts';
import { publishingJob } from '../../../src/jobs/publish-run.ts';
import { webhookDeliveryJob } from '../../../src/jobs/webhook-delivery.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Delivery, retries, the event envelope and its signature: the delivery worker's steps driven with
 * a manual clock against a real local receiver; no sleeping through the ladder.
 */
describe('webhook delivery', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let receiver: Receiver;
  beforeEach(async () => {
    runtime = await testRuntime({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '300', FACEBOOK_APP_SECRET: 'fb-secret' },
    });
    ws = await makeWorkspace(runtime, { name: 'Hooks' });
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  const ctx = () => contextFor(runtime, ws.workspace, 'rest');
  const subscribe = (events: string[] = [], path = '/hook') =>
    makeWebhook(runtime, ws.workspace, { url: `${receiver.url}${path}`, events });
  const log = async (webhookId: string) =>
    runtime.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, webhookId))
      .orderBy(asc(webhookDeliveries.deliveredAt), asc(webhookDeliveries.attempt))
      .all();
  const webhookRow = async (id: string) => (await runtime.db.select().from(webhooks).where(eq(webhooks.id, id)).get())!;
  const envelope = (request: ReceivedRequest) => JSON.parse(request.body) as Record<string, any>;

  /** standardwebhooks checks the timestamp against the wall clock: verify at the runtime's time. */
  function verify(secret: string, request: ReceivedRequest): unknown {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(runtime.clock.now());
    try {
      return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    } finally {
      vi.useRealTimers();
    }
  }

  it('sends each event once to a matching subscription, signed, in the event envelope', async () => {
    const hook = await subscribe();
    const item = await makeContent(runtime, ws.workspace, { caption: 'Hello' });
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual(['delivered']);

    const [request] = receiver.requests;
    expect(request!.path).toBe('/hook');
    expect(request!.headers['content-type']).toMatch(/^application\/json/);
    const body = envelope(request!);
    expect(Object.keys(body)).toEqual([
      'id',
      'object',
      'type',
      'created_at',
      'workspace_id',
      'delivery_id',
      'attempt',
      'data',
    ]);
    expect(body).toMatchObject({
      object: 'event',
      type: 'content.created',
      workspace_id: ws.workspace.id,
      attempt: 1,
      data: { content: item },
    });
    expect(body.id).toMatch(/^evt_/);
    expect(body.delivery_id).toMatch(/^whd_/);
    expect(request!.headers['webhook-id']).toBe(body.id);
    expect(request!.headers['webhook-timestamp']).toBe(String(Math.floor(runtime.clock.now().getTime() / 1000)));
    expect(verify(hook.signing_secret, request!)).toEqual(body);
    expect(() => verify(hook.signing_secret, { ...request!, body: request!.body.replace('Hello', 'Hullo') })).toThrow();

    const [row] = await log(hook.id);
    expect(row).toMatchObject({
      id: body.delivery_id,
      eventId: body.id,
      eventType: 'content.created',
      attempt: 1,
      status: 'delivered',
      statusCode: 200,
      responseBody: null,
    });
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual([]);
  });

  it('delivers every event type emitted so far with the spec payload shapes', async () => {
    const hook = await subscribe();
    await connectAccounts(runtime, ws.workspace, ['twitter', 'facebook']);
    const good = await makeContent(runtime, ws.workspace, { content_type: 'text_only', target_platforms: ['twitter'] });
    await update(runtime, ws.workspace, good.id, { status: 'approved' });
    await publish(runtime, ws.workspace, good.id);
    const bad = await makeContent(runtime, ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['instagram'],
    });
    await publish(runtime, ws.workspace, bad.id);
    await drain(runtime, publishingJob(runtime, connectorsFor(runtime)));
    await runOperation(deleteContent, ctx(), { id: bad.id });
    const account = (await platformAccountsOf(runtime.db, ws.workspace.id))('facebook');
    if (account.state === 'none') throw new Error('facebook account missing');
    await handlePlatformCallback(runtime, {
      platform: 'facebook',
      kind: 'deauthorize',
      signedRequest: signedRequest(
        { algorithm: 'HMAC-SHA256', user_id: account.account.platformUserId },
        'fb-secret',
        runtime.clock.now(),
      ),
    });

    await drain(runtime, webhookDeliveryJob(runtime));
    const byType = new Map(receiver.requests.map((r) => [envelope(r).type as string, envelope(r).data]));
    expect([...byType.keys()].sort()).toEqual([
      'content.approved',
      'content.created',
      'content.deleted',
      'content.publish_failed',
      'content.published',
      'content.updated',
      'social_account.disconnected',
    ]);
    expect(byType.get('content.approved')).toEqual({
      content: { id: expect.any(String), object: 'content', status: 'approved' },
    });
    expect(byType.get('content.deleted')).toEqual({ id: bad.id });
    expect(byType.get('content.published')).toMatchObject({
      content: { id: good.id, object: 'content' },
      published_at: expect.any(String),
      platforms: [{ platform: 'twitter', success: true, platform_post_id: expect.any(String), error: null }],
    });
    const failed = byType.get('content.publish_failed') as { platforms: Array<Record<string, unknown>> };
    expect(failed).toMatchObject({ content: { id: bad.id, object: 'content' }, failed_at: expect.any(String) });
    expect(Object.keys(failed.platforms[0]!)).toEqual(['platform', 'success', 'error']);
    expect(byType.get('social_account.disconnected')).toEqual({
      platform: 'facebook',
      account: {
        id: account.account.id,
        platform_user_id: account.account.platformUserId,
        platform_username: account.account.username,
      },
      reason: 'deauthorized',
    });
    for (const request of receiver.requests) expect(() => verify(hook.signing_secret, request)).not.toThrow();
  });

  it('sends only subscribed types, and nothing written before the subscription existed', async () => {
    await makeContent(runtime, ws.workspace); // before any subscription
    const updatesOnly = await subscribe(['content.updated'], '/updates');
    const all = await subscribe([], '/all');
    const item = await makeContent(runtime, ws.workspace);
    await update(runtime, ws.workspace, item.id, { caption: 'Changed' });
    await drain(runtime, webhookDeliveryJob(runtime));
    const seen = (path: string) => receiver.requests.filter((r) => r.path === path).map((r) => envelope(r).type);
    expect(seen('/updates')).toEqual(['content.updated']);
    expect(seen('/all').sort()).toEqual(['content.created', 'content.updated']);
    expect(await log(updatesOnly.id)).toHaveLength(1);
    expect(await log(all.id)).toHaveLength(2);
    // Another workspace's events never reach this workspace's subscriptions.
    await makeContent(runtime, (await makeWorkspace(runtime)).workspace);
    await drain(runtime, webhookDeliveryJob(runtime));
    expect(receiver.requests).toHaveLength(3);
  });

  it('walks the whole retry ladder, then dead-letters the event; the subscription stays enabled', async () => {
    const hook = await subscribe();
    receiver.respondWith({ status: 500, body: 'down for maintenance' });
    await makeContent(runtime, ws.workspace);
    const delays = [30_000, 2 * MINUTE, 10 * MINUTE, HOUR, 6 * HOUR];

    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual(['retry']);
    for (const [index, delay] of delays.entries()) {
      runtime.clock.advance(delay - 1);
      expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual([]);
      runtime.clock.advance(1);
      expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual([
        index === delays.length - 1 ? 'dead' : 'retry',
      ]);
    }
    runtime.clock.advance(24 * HOUR);
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual([]);

    const rows = await log(hook.id);
    expect(rows.map((r) => [r.attempt, r.status, r.statusCode, r.responseBody])).toEqual([
      [1, 'pending_retry', 500, 'down for maintenance'],
      [2, 'pending_retry', 500, 'down for maintenance'],
      [3, 'pending_retry', 500, 'down for maintenance'],
      [4, 'pending_retry', 500, 'down for maintenance'],
      [5, 'pending_retry', 500, 'down for maintenance'],
      [6, 'failed', 500, 'down for maintenance'],
    ]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(6);
    // The same event id on every attempt, a new delivery id and attempt number each time, each signed afresh.
    const bodies = receiver.requests.map(envelope);
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    expect(bodies.map((b) => b.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(bodies.map((b) => b.delivery_id)).toEqual(rows.map((r) => r.id));
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-timestamp'])).size).toBe(6);
    expect(await runtime.db.select().from(webhookJobs).get()).toMatchObject({ state: 'dead', attempts: 6 });
    expect(await webhookRow(hook.id)).toMatchObject({ isEnabled: true, autoDisabledAt: null });
  });

  it('an attempt that cannot be made on our side (the stored secret no longer decrypts) is logged as failed and retried', async () => {
    const hook = await subscribe();
    await runtime.db
      .update(webhooks)
      .set({ secretCiphertext: 'v1.not-a-ciphertext' })
      .where(eq(webhooks.id, hook.id))
      .run();
    await makeContent(runtime, ws.workspace);

    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual(['retry']);
    expect(receiver.requests).toHaveLength(0);
    const [row] = await log(hook.id);
    expect(row).toMatchObject({ attempt: 1, status: 'pending_retry', statusCode: 0 });
    expect(row!.responseBody).toMatch(/^internal error: /);
  });

  it("the worker's timer is set for the next retry's due time", async () => {
    await subscribe();
    receiver.respondWith({ status: 500 });
    await makeContent(runtime, ws.workspace);
    expect(await nextDeliveryDueAfter(runtime.db, runtime.clock.now())).toBeNull();
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual(['retry']);
    expect(await nextDeliveryDueAfter(runtime.db, runtime.clock.now())).toBe(runtime.clock.now().getTime() + 30_000);
  });

  it('a subscription held by the worker signs every attempt handed out after a rotation with the new secret', async () => {
    runtime = await testRuntime({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_CONCURRENCY: '4' } });
    ws = await makeWorkspace(runtime);
    const hook = await subscribe();
    for (let i = 0; i < 3; i++) await makeContent(runtime, ws.workspace);
    await enqueueAllEvents(runtime);
    // One slot for the subscription (a quarter of 4): the first delivery is handed out, then rotated.
    const [claim, ...none] = await claimDueDeliveries(runtime, 4);
    expect(none).toEqual([]);
    const rotated = (await runOperation(rotateWebhookSecret, ctx(), { id: hook.id })) as { signing_secret: string };
    expect(await deliver(runtime, claim!)).toBe('delivered');
    expect(receiver.requests).toHaveLength(3);
    // The first was signed when handed out, before the rotation; the two after it with the new secret.
    expect(() => verify(hook.signing_secret, receiver.requests[0]!)).not.toThrow();
    for (const request of receiver.requests.slice(1)) {
      expect(() => verify(rotated.signing_secret, request)).not.toThrow();
      expect(() => verify(hook.signing_secret, request)).toThrow();
    }
  });

  it('a delivery handed out but never recorded (its commit failed) is sent again once an attempt could no longer be under way', async () => {
    await subscribe();
    await makeContent(runtime, ws.workspace);
    await enqueueAllEvents(runtime);
    expect(await claimDueDeliveries(runtime, 16)).toHaveLength(1); // and then lost
    // Within the attempt's deadline (300 ms) and the lease's margin (5 s) it may still be under way.
    runtime.clock.advance(5_300);
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual([]);
    runtime.clock.advance(1);
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual(['delivered']);
    expect(receiver.requests).toHaveLength(1);
  });

  it('units working one held subscription at once (on PostgreSQL, side by side) hand out each job once and keep the lease meanwhile', async () => {
    const hook = await subscribe();
    for (let i = 0; i < 4; i++) await makeContent(runtime, ws.workspace, { caption: `Item ${i}` });
    await enqueueAllEvents(runtime);
    const now = runtime.clock.now().getTime();
    const { url, secretCiphertext } = await webhookRow(hook.id);
    const queue = (await runtime.db.$store.transaction(() =>
      takeOver(runtime, { webhookId: hook.id, url, secretCiphertext, leaseExpiresAt: null }, now),
    ))!;
    // Two hand-outs and a give-back while the first reads ahead (a pass claiming, a slot's
    // recording handing out its next job): the second finds the read under way and leaves it be.
    const [first, second] = await runtime.db.$store.transaction(() =>
      Promise.all([handOut(runtime, queue, now), handOut(runtime, queue, now), releaseIfIdle(runtime, queue)]),
    );
    expect(first).not.toBeNull();
    expect(second).toBeNull();
    expect(queuesOf(runtime.db).get(hook.id)).toBe(queue);
    expect((await webhookRow(hook.id)).leaseToken).toBe(queue.leaseToken);
    const rest: string[] = [];
    for (let claim; (claim = await runtime.db.$store.transaction(() => handOut(runtime, queue, now)));)
      rest.push(claim.jobId);
    const handedOut = [first!.jobId, ...rest];
    expect(new Set(handedOut).size).toBe(4);
  });

  it("one process at a time sends a subscription; another takes it over once the holder's lease runs out, and sends again what was in flight", async () => {
    const data = tempDataDir('webhook-lease');
    try {
      const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '300' };
      const first = await testRuntime({ env, file: join(data.dir, 'service.db') });
      const second = await testRuntime({ env, file: join(data.dir, 'service.db') });
      const { workspace } = await makeWorkspace(first);
      const hook = await makeWebhook(first, workspace, { url: `${receiver.url}/hook` });
      await makeContent(first, workspace);
      // The first process takes the subscription and has the delivery in hand, not yet sent.
      await enqueueAllEvents(first);
      const [inFlight, ...none] = await claimDueDeliveries(first, 16);
      expect(inFlight).toBeDefined();
      expect(none).toEqual([]);

      // The second sends nothing while the lease (timeout 300 ms + 5 s) lasts...
      second.clock.advance(5_299);
      expect(await drain(second, webhookDeliveryJob(second))).toEqual([]);
      expect(receiver.requests).toHaveLength(0);
      // ...then takes the subscription over and sends the delivery again: at least once.
      second.clock.advance(1);
      expect(await drain(second, webhookDeliveryJob(second))).toEqual(['delivered']);
      expect(receiver.requests).toHaveLength(1);

      // The first one's attempt goes out late and finds its lease gone: it writes nothing.
      expect(await deliver(first, inFlight!)).toBe('lease_lost');
      expect(receiver.requests).toHaveLength(2);
      expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
      const rows = await first.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, hook.id))
        .all();
      expect(rows.map((r) => [r.attempt, r.status])).toEqual([[1, 'delivered']]);
      await first.db.$store.close();
      await second.db.$store.close();
    } finally {
      data.remove();
    }
  });

  it('a retry that succeeds ends the ladder, and logs no response body', async () => {
    const hook = await subscribe();
    receiver.respondWith({ status: 503 });
    await makeContent(runtime, ws.workspace);
    await drain(runtime, webhookDeliveryJob(runtime));
    receiver.respondWith({ status: 204, body: '' });
    runtime.clock.advance(30_000);
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual(['delivered']);
    expect((await log(hook.id)).map((r) => [r.status, r.responseBody])).toEqual([
      ['pending_retry', ''],
      ['delivered', null],
    ]);
  });

  it('treats 3xx (not followed), 4xx, a hang past the deadline, a reset and an oversized body as the spec says', async () => {
    const cases: Array<[Parameters<Receiver['respondWith']>[0], number]> = [
      [{ status: 302, location: '/elsewhere' }, 302],
      [{ status: 410, body: 'gone' }, 410],
      ['hang', 0],
      ['reset', 0],
      [{ status: 500, body: 'x'.repeat(100_000) }, 500],
    ];
    for (const [index, [behaviour]] of cases.entries()) receiver.respondWith(behaviour, `/case${index}`);
    const hooks = [];
    for (const index of cases.keys()) hooks.push(await subscribe([], `/case${index}`));
    await makeContent(runtime, ws.workspace);
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual(cases.map(() => 'retry'));
    for (const [index, [, statusCode]] of cases.entries()) {
      const [row] = await log(hooks[index]!.id);
      expect(row).toMatchObject({ status: 'pending_retry', statusCode });
    }
    expect(receiver.requests.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
    expect((await log(hooks[2]!.id))[0]!.responseBody).toMatch(/timeout/i);
    expect((await log(hooks[4]!.id))[0]!.responseBody).toHaveLength(8192);
  });

  it('the fifth failed attempt in an hour disables the subscription; events still queue; re-enabling resumes oldest first', async () => {
    const hook = await subscribe();
    receiver.respondWith({ status: 500 });
    // Test deliveries never count towards auto-disable.
    for (let i = 0; i < 5; i++) await runOperation(testWebhook, ctx(), { id: hook.id });
    expect((await webhookRow(hook.id)).isEnabled).toBe(true);

    // A millisecond apart: "oldest first" orders by the event's time.
    for (let i = 0; i < 4; i++) {
      await makeContent(runtime, ws.workspace, { caption: `Failing ${i}` });
      runtime.clock.advance(1);
    }
    await drain(runtime, webhookDeliveryJob(runtime));
    expect((await webhookRow(hook.id)).isEnabled).toBe(true);
    runtime.clock.advance(10 * MINUTE);
    await makeContent(runtime, ws.workspace, { caption: 'Failing 4' });
    await drain(runtime, webhookDeliveryJob(runtime)); // the fifth failure: four retries are due too, so more than five fail here
    const disabled = await webhookRow(hook.id);
    expect(disabled.isEnabled).toBe(false);
    expect(disabled.autoDisabledAt?.toISOString()).toBe(runtime.clock.now().toISOString());

    // Disabled: nothing is sent, new events still queue.
    const sent = receiver.requests.length;
    await makeContent(runtime, ws.workspace, { caption: 'While disabled' });
    runtime.clock.advance(3 * HOUR);
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual([]);
    expect(receiver.requests).toHaveLength(sent);

    receiver.respondWith({ status: 200 });
    await runOperation(updateWebhook, ctx(), { id: hook.id, is_enabled: true });
    expect(await webhookRow(hook.id)).toMatchObject({ isEnabled: true, autoDisabledAt: null });
    const outcomes = await drain(runtime, webhookDeliveryJob(runtime));
    expect(outcomes.every((o) => o === 'delivered')).toBe(true);
    const resumed = receiver.requests.slice(sent).map(envelope);
    const captions = resumed.map((b) => b.data.content.caption);
    expect(captions).toEqual(['Failing 0', 'Failing 1', 'Failing 2', 'Failing 3', 'Failing 4', 'While disabled']);
  });

  it('a queued delivery older than 72 hours is abandoned as failed with "expired", never sent', async () => {
    const hook = await subscribe();
    await runOperation(updateWebhook, ctx(), { id: hook.id, is_enabled: false });
    await makeContent(runtime, ws.workspace);
    await drain(runtime, webhookDeliveryJob(runtime));
    runtime.clock.advance(72 * HOUR);
    await runOperation(updateWebhook, ctx(), { id: hook.id, is_enabled: true });
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
    expect((await log(hook.id)).map((r) => [r.status, r.statusCode, r.responseBody])).toEqual([
      ['failed', 0, 'expired'],
    ]);
    expect(await runtime.db.select().from(webhookJobs).get()).toMatchObject({ state: 'dead' });
  });

  it("maintenance abandons a disabled subscription's deliveries past 72 hours without waiting for a re-enable", async () => {
    const hook = await subscribe();
    await runOperation(updateWebhook, ctx(), { id: hook.id, is_enabled: false });
    await makeContent(runtime, ws.workspace);
    await drain(runtime, webhookDeliveryJob(runtime));
    runtime.clock.advance(72 * HOUR - 1);
    expect((await runMaintenance(runtime)).expiredDeliveries).toBe(0);
    runtime.clock.advance(1);
    expect((await runMaintenance(runtime)).expiredDeliveries).toBe(1);
    expect((await log(hook.id)).map((r) => [r.status, r.statusCode, r.responseBody])).toEqual([
      ['failed', 0, 'expired'],
    ]);
    expect((await runMaintenance(runtime)).expiredDeliveries).toBe(0);
    await runOperation(updateWebhook, ctx(), { id: hook.id, is_enabled: true });
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
  });

  it("with the default settings an endpoint that hangs fails after the spec's 10 seconds, not before", async () => {
    runtime = await testRuntime({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    ws = await makeWorkspace(runtime);
    expect(runtime.config.webhooks.timeoutMs).toBe(10_000);
    const hook = await subscribe();
    receiver.respondWith('hang');
    await makeContent(runtime, ws.workspace);
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual(['retry']);
    const [row] = await log(hook.id);
    expect(row).toMatchObject({ status: 'pending_retry', statusCode: 0 });
    expect(row!.durationMs).toBeGreaterThanOrEqual(10_000);
    expect(row!.durationMs).toBeLessThan(11_000);
  }, 20_000);
});
