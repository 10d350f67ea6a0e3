import { asc, eq } from 'drizzle-orm';
import http from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeX, type FakeX } from '../../fakes/x.ts';
import { campaigns, content, publishRuns } from '../../db/schema/index.ts';
import { startCampaignGeneration } from '../../src/jobs/campaign-generation.ts';
import { startPublishing } from '../../src/jobs/publish-run.ts';
import { eventually } from '../helpers/eventually.ts';
import { makeCampaign, makeContent, makeWorkspace } from '../helpers/factories.ts';
import { attemptsFor, connectLiveAccount, publish } from '../helpers/publishing.ts';
import { contentRow } from '../helpers/rest-expect.ts';
import { testRuntime, TEST_ENCRYPTION_KEY, type TestRuntime } from '../helpers/runtime.ts';
import { startEntry, tempDataDir, type RunningProcess } from '../helpers/subprocess.ts';

/** PUBLISH_LEASE_SECONDS and GENERATION_LEASE_SECONDS here: renewed every third of it, so 2 s leaves slack for a loaded machine. */
const LEASE_SECONDS = 2;
const POLL_SECONDS = 1;

/**
 * Work that outlasts its lease is not taken over while its holder is alive: the holder (this
 * process, running the real job loop) renews the lease, and a real second worker process on the
 * same database file, polling all the while, never claims the item. Both clocks are real time.
 */
describe('work longer than its lease, with a second process on the database', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(env: Record<string, string>): Promise<{ runtime: TestRuntime; file: string }> {
    const data = tempDataDir('lease-renewal');
    const file = join(data.dir, 'service.db');
    const runtime = await testRuntime({ file, start: new Date().toISOString(), env });
    cleanups.push(
      () => data.remove(),
      async () => {
        await runtime.db.$store.close();
      },
    );
    runtime.clock.now = () => new Date();
    return { runtime, file };
  }

  /** The second process: a worker running every scheduler on the same database file, with the same leases. */
  async function startSecondWorker(file: string, env: Record<string, string>): Promise<RunningProcess> {
    const worker = startEntry(['worker'], {
      DATABASE_FILE: file,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      SCHEDULER_POLL_SECONDS: String(POLL_SECONDS),
      ...env,
    });
    cleanups.push(() => worker.stop());
    await worker.waitForOutput(/Worker running/, 45_000);
    return worker;
  }

  /**
   * Keeps the work held while the second worker polls long enough to take over a lease that was not
   * renewed: until three leases have passed since the work began, and at least a lease and two polls
   * since the second worker started. Returns every lease token seen meanwhile.
   */
  async function watchLease(
    began: number,
    secondReady: number,
    token: () => Promise<string | null>,
  ): Promise<Set<string | null>> {
    const until = Math.max(began + 3 * LEASE_SECONDS * 1000, secondReady + (LEASE_SECONDS + 2 * POLL_SECONDS) * 1000);
    const seen = new Set<string | null>();
    while (Date.now() < until) {
      seen.add(await token());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    seen.add(await token());
    return seen;
  }

  it('a live publish whose create call is answered after three leases is published once, by its holder, without a takeover or a reconcile', async () => {
    const x: FakeX = await startFakeX();
    cleanups.push(() => x.close());
    const env = { PUBLISH_LEASE_SECONDS: String(LEASE_SECONDS), ...fakePlatformEnvironment({ x }) };
    const { runtime, file } = await setUp(env);
    const ws = await makeWorkspace(runtime, { name: 'Slow platform' });
    const author = x.users[0]!;
    const issued = x.issueTokens(author.id);
    await connectLiveAccount(
      runtime,
      ws.workspace,
      'twitter',
      {
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken,
        expiresAt: new Date(Date.now() + issued.expiresIn * 1000),
        scopes: issued.scopes,
      },
      { platformUserId: author.id, username: author.username },
    );
    const post = await makeContent(runtime, ws.workspace, {
      caption: 'Answered late',
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    await publish(runtime, ws.workspace, post.id);

    const held = x.script.hold('tweets.create');
    const holder = startPublishing(runtime);
    // Released before the holder stops, so a failing test does not wait out the call's timeout.
    cleanups.push(
      () => holder.stop(),
      () => held.release(),
    );
    await eventually('the create call is out', () => x.log.calls('tweets.create').length === 1);
    const began = Date.now();
    const claimed = (await contentRow(runtime, post.id))!;
    expect(claimed.status).toBe('publishing');
    const firstExpiry = claimed.leaseExpiresAt!.getTime();

    await startSecondWorker(file, env);
    const tokens = await watchLease(began, Date.now(), async () => (await contentRow(runtime, post.id))!.leaseToken);
    // Still the holder's, and renewed well past the lease it was claimed with.
    expect([...tokens]).toEqual([claimed.leaseToken]);
    expect((await contentRow(runtime, post.id))!.leaseExpiresAt!.getTime()).toBeGreaterThan(
      firstExpiry + LEASE_SECONDS * 1000,
    );
    expect(x.log.calls('tweets.create')).toEqual([expect.objectContaining({ status: null })]);

    held.release();
    await eventually('the item is finished', async () => (await contentRow(runtime, post.id))!.status !== 'publishing');
    const row = (await contentRow(runtime, post.id))!;
    expect(row.status, JSON.stringify(row.publishResults)).toBe('published');
    expect(x.posts).toHaveLength(1);
    expect(x.log.creates()).toHaveLength(1);
    expect(row.publishResults).toEqual([
      expect.objectContaining({
        platform: 'twitter',
        success: true,
        platform_post_id: x.posts[0]!.id,
        url: `https://x.com/${author.username}/status/${x.posts[0]!.id}`,
        error: null,
      }),
    ]);
    // Nothing looked for the post: no process took the item over and resumed it.
    expect(x.log.calls('users.tweets')).toHaveLength(0);
    expect((await attemptsFor(runtime, post.id)).map((a) => a.status)).toEqual(['published']);
    const runs = await runtime.db.select().from(publishRuns).where(eq(publishRuns.contentId, post.id)).all();
    expect(runs.map((run) => [run.claimedBy, run.outcome])).toEqual([[`${hostname()}:${process.pid}`, 'published']]);
  }, 90_000);

  it('a campaign batch whose writer answers after three leases is committed by its holder, never written by the second process', async () => {
    const ai = await startSlowWriter();
    cleanups.push(() => ai.close());
    const env = {
      GENERATION_LEASE_SECONDS: String(LEASE_SECONDS),
      AI_BASE_URL: ai.baseUrl,
      AI_API_KEY: 'sk-test',
      AI_MAX_RETRIES: '0',
    };
    const { runtime, file } = await setUp(env);
    const ws = await makeWorkspace(runtime, { name: 'Slow writer' });
    // One batch: the OpenAI-compatible generator writes at most 20 slots a call.
    const { id } = await makeCampaign(
      runtime,
      ws.workspace,
      { name: 'Slow drafts', posts_per_day: 2, campaign_length_days: 10 },
      { launch: true },
    );
    const campaign = async () => (await runtime.db.select().from(campaigns).where(eq(campaigns.id, id)).get())!;

    const holder = startCampaignGeneration(runtime);
    cleanups.push(
      () => holder.stop(),
      () => ai.release(),
    );
    await eventually('the first batch is being written', () => ai.requests() === 1);
    const began = Date.now();
    const claimed = await campaign();
    expect(claimed.generationLeaseToken).not.toBeNull();
    const firstDue = claimed.generationDueAt!.getTime();

    await startSecondWorker(file, env);
    const tokens = await watchLease(began, Date.now(), async () => (await campaign()).generationLeaseToken);
    expect([...tokens]).toEqual([claimed.generationLeaseToken]);
    expect((await campaign()).generationDueAt!.getTime()).toBeGreaterThan(firstDue + LEASE_SECONDS * 1000);
    expect((await campaign()).generatedPosts).toBe(0);

    ai.release();
    await eventually('the campaign is generated and let go', async () => {
      const row = await campaign();
      return row.generatedPosts === 20 && row.generationDueAt === null;
    });
    // One request for the one batch: the second process never wrote it again.
    expect(ai.requests()).toBe(1);
    const items = await runtime.db
      .select({ slot: content.campaignSlot, caption: content.caption })
      .from(content)
      .where(eq(content.campaignId, id))
      .orderBy(asc(content.campaignSlot))
      .all();
    expect(items).toEqual(Array.from({ length: 20 }, (_, i) => ({ slot: i, caption: `Answer 1, post ${i + 1}.` })));
  }, 90_000);
});

/**
 * An OpenAI-compatible chat-completions endpoint on loopback whose first answer waits until
 * `release`; later requests are answered at once. Each answer names its request: "Answer n, post m."
 */
async function startSlowWriter(): Promise<{
  baseUrl: string;
  requests(): number;
  release(): void;
  close(): Promise<void>;
}> {
  let count = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const n = (count += 1);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const prompt: string = body.messages.map((m: { content: string }) => m.content).join('\n');
      const slots = Number(prompt.match(/Write (\d+) posts/)![1]);
      if (n === 1) await released;
      const posts = Array.from({ length: slots }, (_, i) => ({
        caption: `Answer ${n}, post ${i + 1}.`,
        hashtags: [],
        topic: 'slow drafts',
      }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${n}`,
          object: 'chat.completion',
          model: 'test-model',
          choices: [
            { index: 0, message: { role: 'assistant', content: JSON.stringify({ posts }) }, finish_reason: 'stop' },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => count,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
