import { afterEach, describe, expect, it } from 'vitest';
import { contextFor } from '../../src/core/context.ts';
import { runOperation } from '../../src/core/operation.ts';
import { createWebhook } from '../../src/core/webhooks/operations.ts';
import type { Worker } from '../../src/jobs/leased-worker.ts';
import { startWebhookDelivery } from '../../src/jobs/webhook-delivery.ts';
import { eventually } from '../helpers/eventually.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/** The delivery worker in real time: woken by the events it must send, never held up by one endpoint. */
describe('webhook delivery worker', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(env: Record<string, string> = {}): Promise<{ runtime: TestRuntime; receiver: Receiver; worker: Worker }> {
    const runtime = testRuntime({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ...env }, start: new Date().toISOString() });
    runtime.clock.now = () => new Date();
    const receiver = await startReceiver();
    const worker = startWebhookDelivery(runtime);
    cleanups.push(() => receiver.close(), () => worker.stop());
    return { runtime, receiver, worker };
  }

  it('an event written in this process is delivered at once, not at the next poll', async () => {
    const { runtime, receiver } = await setUp();
    const ws = makeWorkspace(runtime);
    await runOperation(createWebhook, contextFor(runtime, ws.workspace, 'rest'), { url: `${receiver.url}/hook`, events: [] });
    const written = Date.now();
    makeContent(runtime, ws.workspace);
    await receiver.waitForRequests(1, 2000);
    // The backstop polls once a second; the wake-up sends within a few turns of the event loop.
    expect(Date.now() - written).toBeLessThan(500);
  });

  it('one endpoint that hangs holds at most a quarter of the slots; the others are delivered meanwhile', async () => {
    const { runtime, receiver } = await setUp({ WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_CONCURRENCY: '8' });
    receiver.respondWith('hang', '/slow');
    const ws = makeWorkspace(runtime);
    const ctx = contextFor(runtime, ws.workspace, 'rest');
    await runOperation(createWebhook, ctx, { url: `${receiver.url}/slow`, events: [] });
    await runOperation(createWebhook, ctx, { url: `${receiver.url}/fast`, events: [] });
    const started = Date.now();
    for (let i = 0; i < 30; i++) makeContent(runtime, ws.workspace, { caption: `Event ${i}` });

    await eventually('the fast endpoint has all thirty', () => receiver.requests.filter((r) => r.path === '/fast').length === 30, 2500, 10);
    // All thirty reached the fast endpoint before the first hung attempt's 3 s deadline.
    expect(Date.now() - started).toBeLessThan(3000);
    // The slow endpoint never had more than its two slots (a quarter of 8) out at once.
    expect(receiver.requests.filter((r) => r.path === '/slow')).toHaveLength(2);
  });
});
