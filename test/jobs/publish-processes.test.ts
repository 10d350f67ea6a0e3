import { and, count, eq } from 'drizzle-orm';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { content, events, publishRuns, sandboxPosts, publishAttempts } from '../../db/schema/index.ts';
import { UNKNOWN_OUTCOME } from '../../src/core/publishing/finish.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { eventually } from '../helpers/eventually.ts';
import { attemptsFor, connectAccounts, publish, sandboxPostsFor } from '../helpers/publishing.ts';
import { contentRow } from '../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { startEntry, tempDataDir, type RunningProcess } from '../helpers/subprocess.ts';

/**
 * Publish crash safety and leased claims across processes: real worker processes on one database file.
 * The test process writes through its own connection with the real time, as a REST process would.
 */
describe('publishing across real processes', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(): Promise<{ runtime: TestRuntime; file: string }> {
    const data = tempDataDir('publish-processes');
    const file = join(data.dir, 'service.db');
    const runtime = await testRuntime({ file, start: new Date().toISOString() });
    cleanups.push(
      () => data.remove(),
      async () => {
        await runtime.db.$store.close();
      },
    );
    // Our clock follows real time, like the workers' clocks.
    runtime.clock.now = () => new Date();
    return { runtime, file };
  }

  function startWorker(file: string, env: Record<string, string> = {}): RunningProcess {
    const worker = startEntry(['worker'], { DATABASE_FILE: file, PUBLISH_LEASE_SECONDS: '2', ...env });
    cleanups.push(() => worker.stop());
    return worker;
  }

  it('a worker SIGKILLed mid fan-out: after a restart no platform is posted twice and the item is finished', async () => {
    const { runtime, file } = await setUp();
    const ws = await makeWorkspace(runtime, { name: 'Crash' });
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin', 'facebook']);
    const post = await makeContent(runtime, ws.workspace, {
      media_urls: ['https://cdn.example.com/a.jpg'],
      target_platforms: ['twitter', 'linkedin', 'facebook'],
    });
    await publish(runtime, ws.workspace, post.id);

    // linkedin answers only after a minute: the worker dies while that call is out.
    const first = startWorker(file, { SANDBOX_PUBLISH_DELAY_MS: 'linkedin:60000' });
    const statuses = async () =>
      Object.fromEntries((await attemptsFor(runtime, post.id)).map((a) => [a.platform, a.status]));
    await eventually('twitter and facebook answered while linkedin is out', async () => {
      const s = await statuses();
      return s.twitter === 'published' && s.facebook === 'published' && s.linkedin === 'pending';
    });
    first.child.kill('SIGKILL');
    await first.stop();
    expect((await contentRow(runtime, post.id))!.status).toBe('publishing');

    // A fresh worker, without the delay, takes the item over once the dead worker's lease runs out.
    const second = startWorker(file);
    await eventually(
      'the item is finished',
      async () => (await contentRow(runtime, post.id))!.status !== 'publishing',
    ).catch(async (e) => {
      throw new Error(
        `${e.message}\n${second.stdout()}\n${second.stderr()}\n${JSON.stringify(await contentRow(runtime, post.id))}`,
      );
    });

    const row = (await contentRow(runtime, post.id))!;
    expect(row.status).toBe('published');
    expect(row.publishResults.map((r) => [r.platform, r.success, r.error])).toEqual([
      ['twitter', true, null],
      ['linkedin', false, UNKNOWN_OUTCOME],
      ['facebook', true, null],
    ]);
    expect((await sandboxPostsFor(runtime, post.id)).map((p) => p.platform)).toEqual(['facebook', 'twitter']);
    const published = await runtime.db.select().from(events).where(eq(events.type, 'content.published')).all();
    expect(published).toHaveLength(1);
  }, 60_000);

  it('two workers on one database publish every item exactly once', async () => {
    const { runtime, file } = await setUp();
    const workspaces = [await makeWorkspace(runtime, { name: 'One' }), await makeWorkspace(runtime, { name: 'Two' })];
    for (const ws of workspaces) await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);

    // Small slots and a platform delay keep either worker from finishing alone before the other's first pass.
    const env = { PUBLISH_CONCURRENCY: '8', SANDBOX_PUBLISH_DELAY_MS: 'twitter:200' };
    const workers = [startWorker(file, env), startWorker(file, env)];
    await Promise.all(workers.map((w) => w.waitForOutput(/Worker running/)));

    const ids: string[] = [];
    for (let i = 0; i < 150; i += 1) {
      const ws = workspaces[i % 2]!;
      const item = await makeContent(runtime, ws.workspace, {
        content_type: 'text_only',
        caption: `Post ${i}`,
        target_platforms: ['twitter', 'linkedin'],
      });
      await publish(runtime, ws.workspace, item.id);
      ids.push(item.id);
    }
    const finished = async () =>
      (await runtime.db.select({ n: count() }).from(content).where(eq(content.status, 'published')).get())!.n;
    await eventually('every item is published', async () => (await finished()) === ids.length, 45_000);

    const db = runtime.db;
    expect((await db.select({ n: count() }).from(publishRuns).get())!.n).toBe(ids.length);
    // Both workers took part: the runs name two claiming processes.
    const claimers = await db.selectDistinct({ by: publishRuns.claimedBy }).from(publishRuns).all();
    expect(claimers.map((c) => c.by).sort()).toEqual(workers.map((w) => `${hostname()}:${w.child.pid}`).sort());
    expect((await db.select({ n: count() }).from(sandboxPosts).get())!.n).toBe(ids.length * 2);
    expect(
      (await db.select({ n: count() }).from(publishAttempts).where(eq(publishAttempts.status, 'published')).get())!.n,
    ).toBe(ids.length * 2);
    const perItem = (await db
      .select({ n: count() })
      .from(events)
      .where(and(eq(events.type, 'content.published')))
      .get())!.n;
    expect(perItem).toBe(ids.length);
    for (const id of ids)
      expect((await sandboxPostsFor(runtime, id)).map((p) => p.platform)).toEqual(['linkedin', 'twitter']);
  }, 90_000);
});
