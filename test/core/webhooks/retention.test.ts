import { asc, count, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertRow } from '../../../db/client.ts';
import { events, webhookDeliveries, webhookJobs, type WebhookJobState } from '../../../db/schema/index.ts';
import { contextFor } from '../../../src/core/context.ts';
import { runOperation } from '../../../src/core/operation.ts';
import { createWebhook, testWebhook, updateWebhook } from '../../../src/core/webhooks/operations.ts';
import { pruneDeliveryHistory } from '../../../src/core/webhooks/retention.ts';
import { runMaintenance } from '../../../src/jobs/maintenance.ts';
import { makeContent, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts';
import { drain } from '../../../src/jobs/drain.ts';
import { webhookDeliveryJob } from '../../../src/jobs/webhook-delivery.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * WEBHOOK_LOG_RETENTION_DAYS: maintenance deletes delivery-log rows and finished jobs older than the
 * window, and never a job still queued nor a log row of one.
 */
describe('webhook delivery history retention', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let receiver: Receiver;
  beforeEach(async () => {
    // Three attempts: the second a minute after the first, the third 25 hours after that.
    runtime = await testRuntime({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_LOG_RETENTION_DAYS: '1', WEBHOOK_RETRY_DELAYS: '60,90000' },
    });
    ws = await makeWorkspace(runtime);
    receiver = await startReceiver();
    receiver.respondWith({ status: 500 }, '/fail');
  });
  afterEach(() => receiver.close());

  const ctx = () => contextFor(runtime, ws.workspace, 'rest');
  const subscribe = async (path: string) =>
    ((await runOperation(createWebhook, ctx(), { url: `${receiver.url}${path}`, events: [] })) as { id: string }).id;
  const log = async (webhookId: string) =>
    runtime.db
      .select({
        eventId: webhookDeliveries.eventId,
        attempt: webhookDeliveries.attempt,
        status: webhookDeliveries.status,
      })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, webhookId))
      .orderBy(asc(webhookDeliveries.deliveredAt), asc(webhookDeliveries.attempt))
      .all();
  const jobs = async (webhookId: string) =>
    runtime.db
      .select({ eventId: webhookJobs.eventId, state: webhookJobs.state })
      .from(webhookJobs)
      .where(eq(webhookJobs.webhookId, webhookId))
      .orderBy(asc(webhookJobs.createdAt))
      .all();
  const eventOf = async (contentId: string) =>
    (await runtime.db.select({ id: events.id, data: events.data }).from(events).all()).find(
      (event) => (event.data.content as { id?: string } | undefined)?.id === contentId,
    )!.id;

  it('prunes exactly the finished jobs and log rows older than the window, keeping younger ones and everything a queued delivery has', async () => {
    const ok = await subscribe('/ok');
    const failing = await subscribe('/fail');
    const off = await subscribe('/off');
    await runOperation(updateWebhook, ctx(), { id: off, is_enabled: false });

    const first = await eventOf((await makeContent(runtime, ws.workspace)).id);
    expect((await drain(runtime, webhookDeliveryJob(runtime))).sort()).toEqual(['delivered', 'retry']);
    await runOperation(testWebhook, ctx(), { id: ok });
    runtime.clock.advance(MINUTE);
    expect(await drain(runtime, webhookDeliveryJob(runtime))).toEqual(['retry']);
    runtime.clock.advance(23 * HOUR - MINUTE);
    const second = await eventOf((await makeContent(runtime, ws.workspace)).id);
    expect((await drain(runtime, webhookDeliveryJob(runtime))).sort()).toEqual(['delivered', 'retry']);

    // A day and a minute after the first event: its delivered job and log row, and the test
    // delivery, are past the window; the failing subscription's first delivery is still queued
    // (its third attempt is not due yet), so it keeps its job and both its log rows.
    runtime.clock.advance(HOUR + MINUTE);
    const report = await runMaintenance(runtime);
    expect(report).toMatchObject({ prunedDeliveryLogRows: 2, prunedDeliveryJobs: 1, expiredDeliveries: 0 });
    expect(await log(ok)).toEqual([{ eventId: second, attempt: 1, status: 'delivered' }]);
    expect(await jobs(ok)).toEqual([{ eventId: second, state: 'delivered' }]);
    expect(await log(failing)).toEqual([
      { eventId: first, attempt: 1, status: 'pending_retry' },
      { eventId: first, attempt: 2, status: 'pending_retry' },
      { eventId: second, attempt: 1, status: 'pending_retry' },
    ]);
    expect(await jobs(failing)).toEqual([
      { eventId: first, state: 'queued' },
      { eventId: second, state: 'queued' },
    ]);
    // A disabled subscription's queue is kept whatever its age (until it expires at 72 hours).
    expect(await jobs(off)).toEqual([
      { eventId: first, state: 'queued' },
      { eventId: second, state: 'queued' },
    ]);
    expect(await runMaintenance(runtime)).toMatchObject({ prunedDeliveryLogRows: 0, prunedDeliveryJobs: 0 });

    // The first delivery's last attempt fails: dead, it is finished, and it and its two old log
    // rows go; the attempt just made stays, as do the second event's.
    runtime.clock.advance(HOUR);
    expect((await drain(runtime, webhookDeliveryJob(runtime))).sort()).toEqual(['dead', 'retry']);
    expect(await runMaintenance(runtime)).toMatchObject({ prunedDeliveryLogRows: 2, prunedDeliveryJobs: 1 });
    expect(await log(failing)).toEqual([
      { eventId: second, attempt: 1, status: 'pending_retry' },
      { eventId: second, attempt: 2, status: 'pending_retry' },
      { eventId: first, attempt: 3, status: 'failed' },
    ]);
    expect(await jobs(failing)).toEqual([{ eventId: second, state: 'queued' }]);
    expect(await jobs(off)).toHaveLength(2);
  });

  it('walks past batches of kept rows and rows of the same age, deleting only what may go', async () => {
    const hook = await subscribe('/ok');
    const old = runtime.clock.now().getTime() - 2 * DAY;
    // 1,100 jobs of one age, every third still queued; 1,650 log rows of one age, three per job.
    const states: WebhookJobState[] = ['delivered', 'queued', 'dead'];
    for (let i = 0; i < 1_100; i++) {
      const jobId = `job_${String(i).padStart(5, '0')}`;
      await insertRow(runtime.db, webhookJobs, {
        id: jobId,
        webhookId: hook,
        workspaceId: ws.workspace.id,
        eventId: `evt_${i}`,
        state: states[i % 3]!,
        attempts: 1,
        nextAttemptAt: new Date(old),
        createdAt: new Date(old),
      });
      if (i % 2 === 0) continue;
      for (let attempt = 1; attempt <= 3; attempt++) {
        await insertRow(runtime.db, webhookDeliveries, {
          id: `whd_${jobId}_${attempt}`,
          webhookId: hook,
          jobId,
          eventId: `evt_${i}`,
          eventType: 'content.created',
          attempt,
          status: 'pending_retry',
          statusCode: 500,
          responseBody: null,
          durationMs: 1,
          deliveredAt: new Date(old + attempt),
          isTest: false,
        });
      }
    }
    const queued = Array.from({ length: 1_100 }, (_, i) => i).filter((i) => i % 3 === 1);
    const queuedWithLog = queued.filter((i) => i % 2 === 1);
    expect(await pruneDeliveryHistory(runtime)).toEqual({
      logRows: 3 * (550 - queuedWithLog.length),
      jobs: 1_100 - queued.length,
    });
    expect(await runtime.db.select({ state: webhookJobs.state }).from(webhookJobs).all()).toEqual(
      queued.map(() => ({ state: 'queued' })),
    );
    expect(await runtime.db.select({ n: count() }).from(webhookDeliveries).get()).toEqual({
      n: 3 * queuedWithLog.length,
    });
  });
});
