import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { publishRuns } from '../../db/schema/index.ts';
import { startPublishing } from '../../src/jobs/publish-run.ts';
import type { Worker } from '../../src/jobs/leased-worker.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { connectAccounts, update } from '../helpers/publishing.ts';
import { baseEnv, contentRow } from '../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

/** The scheduler around the run: woken by the core, timed for the next schedule, never polled. */
describe('publishing scheduler', () => {
  let scheduler: Worker | undefined;
  let server: TestServer | undefined;
  afterEach(async () => {
    await scheduler?.stop();
    await server?.close();
    scheduler = server = undefined;
  });

  /**
   * A runtime whose clock follows real time, since the scheduler arms real timers. The backstop poll
   * is pushed out of the test's reach, so only a wake-up or the next-due timer can claim the item.
   */
  async function liveRuntime(): Promise<TestRuntime> {
    const runtime = await testRuntime({
      env: { ...baseEnv, SCHEDULER_POLL_SECONDS: '3600' },
      start: new Date().toISOString(),
    });
    runtime.clock.now = () => new Date();
    return runtime;
  }

  it('POST /publish wakes the run: the item is published without waiting for the backstop poll', async () => {
    const runtime = await liveRuntime();
    scheduler = startPublishing(runtime);
    server = await startTestServer(runtime);
    const ws = await makeWorkspace(runtime);
    await connectAccounts(runtime, ws.workspace, ['linkedin']);
    const item = await makeContent(runtime, ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['linkedin'],
    });

    const res = await call(server, 'POST', `/api/v1/content/${item.id}/publish`, { headers: ws.headers });
    expect(res.status).toBe(202);
    // No poll runs within the test: only the wake-up from the publish call can get it published.
    await vi.waitFor(async () => expect((await contentRow(runtime, item.id))!.status).toBe('published'), {
      timeout: 5000,
      interval: 5,
    });
  });

  it('arms a timer for the next scheduled_for and claims the item when it comes due, not before', async () => {
    const runtime = await liveRuntime();
    const ws = await makeWorkspace(runtime);
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    const at = new Date(Date.now() + 400);
    const item = await makeContent(runtime, ws.workspace, { content_type: 'text_only', target_platforms: ['twitter'] });
    // Scheduled before the scheduler starts: found by the timer armed at start-up.
    await update(runtime, ws.workspace, item.id, { status: 'scheduled', scheduled_for: at.toISOString() });
    scheduler = startPublishing(runtime);

    // No poll runs within the test: only the timer armed for scheduled_for can claim it.
    await vi.waitFor(async () => expect((await contentRow(runtime, item.id))!.status).toBe('published'), {
      timeout: 5000,
      interval: 5,
    });
    const run = (await runtime.db.select().from(publishRuns).where(eq(publishRuns.contentId, item.id)).get())!;
    expect(run.startedAt.getTime()).toBeGreaterThanOrEqual(at.getTime());
  });

  it('stop() lets the items in hand finish and claims nothing after', async () => {
    const runtime = await testRuntime({ env: { SANDBOX_PUBLISH_DELAY_MS: 'twitter:50' } });
    const ws = await makeWorkspace(runtime);
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    const first = await makeContent(runtime, ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
      status: 'scheduled',
      scheduled_for: runtime.clock.now().toISOString(),
    });
    const running = startPublishing(runtime);
    await vi.waitFor(async () => expect((await contentRow(runtime, first.id))!.status).toBe('publishing'), {
      interval: 5,
    });
    await running.stop();
    expect((await contentRow(runtime, first.id))!.status).toBe('published');

    const later = await makeContent(runtime, ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
      status: 'scheduled',
      scheduled_for: runtime.clock.now().toISOString(),
    });
    runtime.wake('publishing');
    // Past the once-a-second backstop too: a stopped scheduler claims nothing, woken or not.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await contentRow(runtime, later.id))!.status).toBe('scheduled');
  });
});
