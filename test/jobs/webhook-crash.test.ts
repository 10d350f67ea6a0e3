import { count, ne } from 'drizzle-orm';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { webhookJobs } from '../../db/schema/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { makeContent, makeWebhook, makeWorkspace } from '../helpers/factories.ts';
import { testRuntime, TEST_ENCRYPTION_KEY } from '../helpers/runtime.ts';
import { startEntry, tempDataDir, type RunningProcess } from '../helpers/subprocess.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

/**
 * Webhook delivery is at least once. The server is SIGKILLed with a thousand deliveries under way,
 * then restarted on the same database: every event reaches the receiver, duplicates are counted.
 */
describe('webhook delivery across a crash', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('a SIGKILL with 1,000 deliveries in flight loses none after a restart', async () => {
    const data = tempDataDir('webhook-crash');
    const file = join(data.dir, 'service.db');
    const runtime = await testRuntime({
      file,
      start: new Date().toISOString(),
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    });
    runtime.clock.now = () => new Date();
    const receiver = await startReceiver();
    cleanups.push(
      () => data.remove(),
      async () => {
        await runtime.db.$store.close();
      },
      () => receiver.close(),
    );
    const ws = await makeWorkspace(runtime);
    await makeWebhook(runtime, ws.workspace, { url: `${receiver.url}/hook`, events: ['content.created'] });
    for (let i = 0; i < 1000; i++) await makeContent(runtime, ws.workspace, { caption: `Event ${i}` });

    const env = {
      DATABASE_FILE: file,
      PORT: '0',
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
    };
    const start = (): RunningProcess => {
      const server = startEntry(['serve'], env);
      cleanups.push(() => server.stop());
      return server;
    };
    const first = start();
    await first.waitForOutput(/Listening on/);
    await receiver.waitForRequests(200, 20_000);
    first.child.kill('SIGKILL');
    await first.stop();
    const beforeRestart = receiver.requests.length;
    expect(beforeRestart).toBeLessThan(1000);

    const second = start();
    await second.waitForOutput(/Listening on/);
    const distinct = () => new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size;
    await eventually('every event arrived', () => distinct() >= 1000, 40_000, 100);
    expect(distinct()).toBe(1000);
    const duplicates = receiver.requests.length - distinct();
    console.log(
      `webhook crash test: ${beforeRestart} requests before the SIGKILL, ${receiver.requests.length} in all, ${duplicates} duplicates`,
    );
    await eventually(
      'every job is delivered',
      async () =>
        (await runtime.db.select({ n: count() }).from(webhookJobs).where(ne(webhookJobs.state, 'delivered')).get())!
          .n === 0,
      10_000,
      50,
    );
    expect((await runtime.db.select({ n: count() }).from(webhookJobs).get())!.n).toBe(1000);
  }, 90_000);
});
