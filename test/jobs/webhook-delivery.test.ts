import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../db/schema/index.ts';
import type { Worker } from '../../src/jobs/leased-worker.ts';
import { webhookDeliveryJob, startWebhookDelivery } from '../../src/jobs/webhook-delivery.ts';
import { eventually } from '../helpers/eventually.ts';
import { makeContent, makeWebhook, makeWorkspace } from '../helpers/factories.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { tempDataDir } from '../helpers/subprocess.ts';
import { join } from 'node:path';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { drain } from '../../src/jobs/drain.ts';

/** The delivery worker in real time: woken by the events it must send, never held up by one endpoint. */
describe('webhook delivery worker', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** The backstop poll is pushed out of the test's reach: only the worker's wake-ups move work. */
  async function setUp(
    env: Record<string, string> = {},
  ): Promise<{ runtime: TestRuntime; receiver: Receiver; worker: Worker }> {
    const runtime = await testRuntime({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SCHEDULER_POLL_SECONDS: '3600', ...env },
      start: new Date().toISOString(),
    });
    runtime.clock.now = () => new Date();
    const receiver = await startReceiver();
    const worker = startWebhookDelivery(runtime);
    // Run in reverse: the receiver closes first, ending any hung attempt, then the worker drains.
    cleanups.push(
      () => worker.stop(),
      () => receiver.close(),
    );
    return { runtime, receiver, worker };
  }

  it('an event written in this process is delivered at once, not at the next poll', async () => {
    const { runtime, receiver } = await setUp();
    const ws = await makeWorkspace(runtime);
    await makeWebhook(runtime, ws.workspace, { url: `${receiver.url}/hook` });
    await makeContent(runtime, ws.workspace);
    // No poll runs within the test: only the wake-up from the event written can send it.
    await receiver.waitForRequests(1, 5000);
  });

  it('one endpoint that hangs holds at most a quarter of the slots; the others are delivered meanwhile', async () => {
    const { runtime, receiver } = await setUp({ WEBHOOK_CONCURRENCY: '8' });
    receiver.respondWith('hang', '/slow');
    const ws = await makeWorkspace(runtime);
    const slow = await makeWebhook(runtime, ws.workspace, { url: `${receiver.url}/slow` });
    await makeWebhook(runtime, ws.workspace, { url: `${receiver.url}/fast` });
    for (let i = 0; i < 30; i++) await makeContent(runtime, ws.workspace, { caption: `Event ${i}` });

    await eventually(
      'the fast endpoint has all thirty',
      () => receiver.requests.filter((r) => r.path === '/fast').length === 30,
      8000,
      10,
    ).catch(async (error: Error) => {
      // What the worker had done by then, so a failure says where the deliveries stopped.
      const jobs = await runtime.db.all(
        sql`select webhook_id, state, count(*) as n from webhook_jobs group by webhook_id, state order by 1, 2`,
      );
      const cursor = await runtime.db.all(sql`select * from webhook_fanout_cursor`);
      const events = await runtime.db.all(sql`select count(*) as n, max(seq) as seq from events`);
      const fast = receiver.requests.filter((r) => r.path === '/fast').length;
      throw new Error(
        `${error.message}: ${fast} fast requests; jobs ${JSON.stringify(jobs)}; cursor ${JSON.stringify(cursor)}; events ${JSON.stringify(events)}`,
      );
    });
    // All thirty arrived while the slow endpoint's attempts were still out (none of them is logged yet).
    expect(
      await runtime.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, slow.id)).all(),
    ).toEqual([]);
    // The slow endpoint never had more than its two slots (a quarter of 8) out at once.
    expect(receiver.requests.filter((r) => r.path === '/slow')).toHaveLength(2);
  });

  it('a stopped worker gives back the subscriptions it held: another process sends the rest at once, not after the lease', async () => {
    const data = tempDataDir('webhook-stop');
    cleanups.push(() => data.remove());
    const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SCHEDULER_POLL_SECONDS: '3600', WEBHOOK_CONCURRENCY: '4' };
    const open = async () => {
      const runtime = await testRuntime({ env, file: join(data.dir, 'service.db'), start: new Date().toISOString() });
      runtime.clock.now = () => new Date();
      cleanups.push(async () => {
        await runtime.db.$store.close();
      });
      return runtime;
    };
    const first = await open();
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const ws = await makeWorkspace(first);
    await makeWebhook(first, ws.workspace, { url: `${receiver.url}/hook` });
    // One slot for the subscription (a quarter of 4), which makes 100 deliveries in a row before
    // going back to the worker: stopped meanwhile, the worker still holds the subscription after it.
    for (let i = 0; i < 150; i++) await makeContent(first, ws.workspace, { caption: `Event ${i}` });
    const worker = startWebhookDelivery(first);
    await receiver.waitForRequests(1, 5000);
    await worker.stop();
    const sent = receiver.requests.length;
    expect(sent).toBeLessThan(150);

    // Well inside the 15 s lease: only a subscription given back can be taken over now.
    const second = await open();
    expect((await drain(second, webhookDeliveryJob(second))).length).toBeGreaterThan(0);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(150);
  });
});
