import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { content, workspaces } from '../../../db/schema/index.ts';
import { getWorkspace, setWorkspacePlan } from '../../../src/core/accounts/workspaces.ts';
import { publishContent } from '../../../src/core/content/operations.ts';
import { contextFor } from '../../../src/core/context.ts';
import { RateLimitError } from '../../../src/core/errors.ts';
import { executeOperation } from '../../../src/core/operation.ts';
import { consumeRateLimit } from '../../../src/core/rate-limits.ts';
import { claimDuePublishes, renewLeases } from '../../../src/core/publishing/claim.ts';
import type { PlatformPost, PublishTarget } from '../../../src/core/publishing/connector.ts';
import { connectorsFor } from '../../../src/core/publishing/connectors/index.ts';
import { abandonRun, fanOut } from '../../../src/core/publishing/fan-out.ts';
import { UNKNOWN_OUTCOME } from '../../../src/core/publishing/finish.ts';
import { disconnectSocialAccount } from '../../../src/core/social-accounts/operations.ts';
import { drain } from '../../../src/jobs/drain.ts';
import { publishingJob } from '../../../src/jobs/publish-run.ts';
import { inOrder, makeContent, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import {
  attemptsFor,
  connectAccounts,
  connectorsWith,
  publish,
  sandboxPostsFor,
  update,
} from '../../helpers/publishing.ts';
import { contentRow, eventsOf, insertPublished } from '../../helpers/rest-expect.ts';
import { TEST_START, testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const IMAGE = 'https://cdn.example.com/one.jpg';
const IMAGE2 = 'https://cdn.example.com/two.jpg';

/** The publishing run: its transitions, events and crash safety, driven by a manual clock. */
describe('publishing run', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  beforeEach(async () => {
    runtime = await testRuntime();
    ws = await makeWorkspace(runtime, { name: 'Acme' });
  });

  const run = (connectors = connectorsFor(runtime)) => drain(runtime, publishingJob(runtime, connectors));
  const eventsOfType = async (type: string, workspaceId = ws.workspace.id) =>
    (await eventsOf(runtime, workspaceId)).filter((e) => e.type === type);
  const item = async (input: Record<string, unknown>) =>
    makeContent(runtime, ws.workspace, { media_urls: [IMAGE], ...input });

  it('publishes an immediate publish on every platform: published_at, publish_results and content.published', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin', 'facebook']);
    const post = await item({
      caption: 'Launch day',
      target_platforms: ['twitter', 'linkedin', 'facebook'],
      hashtags: ['launch'],
    });
    const queued = await publish(runtime, ws.workspace, post.id);
    expect(queued).toMatchObject({ status: 'approved', publish_queued: true });

    expect(await run()).toEqual(['published']);
    const row = (await contentRow(runtime, post.id))!;
    expect(row).toMatchObject({ status: 'published', publishQueued: false, leaseToken: null, publishRunId: null });
    expect(row.publishedAt?.toISOString()).toBe(runtime.clock.now().toISOString());
    expect(row.publishResults.map((r) => [r.platform, r.success, r.error])).toEqual([
      ['twitter', true, null],
      ['linkedin', true, null],
      ['facebook', true, null],
    ]);
    const received = await sandboxPostsFor(runtime, post.id);
    expect(received.map((p) => p.platform)).toEqual(['facebook', 'linkedin', 'twitter']);
    expect(received[0]!.text).toBe('Launch day\n\n#launch');

    const [event] = await eventsOfType('content.published');
    expect(Object.keys(event!.data)).toEqual(['content', 'published_at', 'platforms']);
    expect(event!.data).toEqual({
      content: { id: post.id, object: 'content' },
      published_at: runtime.clock.now().toISOString(),
      platforms: row.publishResults.map((r) => ({
        platform: r.platform,
        success: true,
        platform_post_id: r.platform_post_id,
        error: null,
      })),
    });
    for (const r of row.publishResults) expect(received.map((p) => p.id)).toContain(r.platform_post_id);
    expect(await eventsOfType('content.publish_failed')).toHaveLength(0);
    // Nothing is left to do: a second pass claims nothing and posts nothing more.
    expect(await run()).toEqual([]);
    expect(await sandboxPostsFor(runtime, post.id)).toHaveLength(3);
  });

  it('holds a future schedule until its time, then publishes it', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    const post = await item({ target_platforms: ['twitter'] });
    const at = new Date(runtime.clock.now().getTime() + 3_600_000);
    expect(await publish(runtime, ws.workspace, post.id, { scheduled_for: at.toISOString() })).toMatchObject({
      status: 'scheduled',
    });

    runtime.clock.advance(3_599_999);
    expect(await run()).toEqual([]);
    expect((await contentRow(runtime, post.id))!.status).toBe('scheduled');

    runtime.clock.advance(1);
    expect(await run()).toEqual(['published']);
    expect((await contentRow(runtime, post.id))!.status).toBe('published');
  });

  it('publishes items scheduled by PATCH status=scheduled and by create with status scheduled', async () => {
    await connectAccounts(runtime, ws.workspace, ['linkedin']);
    const at = new Date(runtime.clock.now().getTime() + 60_000).toISOString();
    const patched = await item({ target_platforms: ['linkedin'] });
    await update(runtime, ws.workspace, patched.id, { status: 'scheduled', scheduled_for: at });
    const created = await item({ target_platforms: ['linkedin'], status: 'scheduled', scheduled_for: at });
    const draft = await item({ target_platforms: ['linkedin'] });

    expect(await run()).toEqual([]);
    runtime.clock.advance(60_000);
    expect(await run()).toHaveLength(2);
    expect((await contentRow(runtime, patched.id))!.status).toBe('published');
    expect((await contentRow(runtime, created.id))!.status).toBe('published');
    expect((await contentRow(runtime, draft.id))!.status).toBe('draft');
  });

  it('partial success: published, and the rejecting platform carries its error and no post id', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    const post = await item({ caption: 'x'.repeat(300), target_platforms: ['twitter', 'linkedin'] });
    await publish(runtime, ws.workspace, post.id);
    await run();

    const row = (await contentRow(runtime, post.id))!;
    expect(row.status).toBe('published');
    const [event] = await eventsOfType('content.published');
    const platforms = event!.data.platforms as Array<Record<string, unknown>>;
    expect(platforms[0]).toMatchObject({ platform: 'twitter', success: false, platform_post_id: null });
    expect(platforms[0]!.error).toMatch(/280/);
    expect(platforms[1]).toMatchObject({ platform: 'linkedin', success: true, error: null });
    expect(platforms[1]!.platform_post_id).toEqual(expect.any(String));
    expect((await sandboxPostsFor(runtime, post.id)).map((p) => p.platform)).toEqual(['linkedin']);
  });

  it('a platform that refuses at publish time counts as a rejection', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'facebook']);
    const connectors = connectorsWith(runtime, {
      facebook: { publish: async () => ({ status: 'rejected', error: 'facebook: page token expired' }) },
    });
    const post = await item({ target_platforms: ['twitter', 'facebook'] });
    await publish(runtime, ws.workspace, post.id);
    await run(connectors);
    expect((await contentRow(runtime, post.id))!.publishResults.map((r) => [r.platform, r.success, r.error])).toEqual([
      ['twitter', true, null],
      ['facebook', false, 'facebook: page token expired'],
    ]);
  });

  it('total failure: back to approved, not queued, content.publish_failed without platform_post_id', async () => {
    await connectAccounts(runtime, ws.workspace, ['instagram']);
    // Instagram needs media; twitter has no connected account.
    const post = await item({ content_type: 'text_only', media_urls: [], target_platforms: ['instagram', 'twitter'] });
    await publish(runtime, ws.workspace, post.id);
    expect(await run()).toEqual(['failed']);

    const row = (await contentRow(runtime, post.id))!;
    expect(row).toMatchObject({ status: 'approved', publishQueued: false, publishedAt: null, leaseToken: null });
    const [event] = await eventsOfType('content.publish_failed');
    expect(Object.keys(event!.data)).toEqual(['content', 'failed_at', 'platforms']);
    expect(event!.data.content).toEqual({ id: post.id, object: 'content' });
    expect(event!.data.failed_at).toBe(runtime.clock.now().toISOString());
    const platforms = event!.data.platforms as Array<Record<string, unknown>>;
    for (const entry of platforms) expect(Object.keys(entry)).toEqual(['platform', 'success', 'error']);
    expect(platforms.map((p) => p.platform)).toEqual(['instagram', 'twitter']);
    expect(platforms[0]!.error).toMatch(/instagram/i);
    expect(platforms[1]!.error).toMatch(/No connected twitter account/);
    expect(await eventsOfType('content.published')).toHaveLength(0);
    expect(await sandboxPostsFor(runtime, post.id)).toHaveLength(0);
    // It stays failed: nothing is retried on its own.
    expect(await run()).toEqual([]);
  });

  it('rejects a platform whose account was disconnected (inactive), and an unknown platform id', async () => {
    const accounts = await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    await disconnectSocialAccount(runtime, accounts.twitter.id);
    const post = await item({ target_platforms: ['twitter', 'linkedin', 'myspace'] });
    await publish(runtime, ws.workspace, post.id);
    await run();
    const results = (await contentRow(runtime, post.id))!.publishResults;
    expect(results.map((r) => [r.platform, r.success])).toEqual([
      ['twitter', false],
      ['linkedin', true],
      ['myspace', false],
    ]);
    expect(results[0]!.error).toMatch(/inactive/);
    expect(results[2]!.error).toMatch(/Unknown platform "myspace"/);
  });

  it('applies platform_specific overrides before each platform validates', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin', 'instagram']);
    const post = await item({
      caption: 'y'.repeat(400),
      media_urls: [],
      content_type: 'single_image',
      target_platforms: ['twitter', 'linkedin', 'instagram'],
      platform_specific: {
        twitter: { caption: 'Short for X', media_urls: [IMAGE] },
        instagram: { media_urls: [IMAGE, IMAGE2], hashtags: ['gram'] },
      },
    });
    await publish(runtime, ws.workspace, post.id);
    await run();
    const results = (await contentRow(runtime, post.id))!.publishResults;
    // linkedin gets the base item: a single_image without media.
    expect(results.map((r) => [r.platform, r.success])).toEqual([
      ['twitter', true],
      ['linkedin', false],
      ['instagram', true],
    ]);
    expect(results[1]!.error).toMatch(/media/);
    const received = Object.fromEntries((await sandboxPostsFor(runtime, post.id)).map((p) => [p.platform, p]));
    expect(received.twitter).toMatchObject({ text: 'Short for X', mediaUrls: [IMAGE] });
    expect(received.instagram).toMatchObject({ text: `${'y'.repeat(400)}\n\n#gram`, mediaUrls: [IMAGE, IMAGE2] });
  });

  it("sends every post in its workspace's default language, and none where the workspace sets none", async () => {
    const other = await makeWorkspace(runtime, { name: 'Other' });
    await runtime.db
      .update(workspaces)
      .set({ defaultLanguage: 'pt-BR' })
      .where(eq(workspaces.id, ws.workspace.id))
      .run();
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    await connectAccounts(runtime, other.workspace, ['twitter']);
    const sent: Array<[string, string, string[]]> = [];
    const recording = (platform: 'twitter' | 'linkedin') => ({
      publish: async (post: PlatformPost, target: PublishTarget) => {
        sent.push([target.account.workspaceId, platform, post.languages]);
        return { status: 'published' as const, platformPostId: `${platform}_${sent.length}`, url: null };
      },
    });
    const ours = await item({ caption: 'Olá', target_platforms: ['twitter', 'linkedin'] });
    const theirs = await makeContent(runtime, other.workspace, { media_urls: [IMAGE], target_platforms: ['twitter'] });
    await publish(runtime, ws.workspace, ours.id);
    await publish(runtime, other.workspace, theirs.id);
    expect(
      await run(connectorsWith(runtime, { twitter: recording('twitter'), linkedin: recording('linkedin') })),
    ).toEqual(['published', 'published']);
    expect(sent.sort()).toEqual(
      [
        [ws.workspace.id, 'linkedin', ['pt-BR']],
        [ws.workspace.id, 'twitter', ['pt-BR']],
        [other.workspace.id, 'twitter', []],
      ].sort(),
    );
  });

  it('rejects a content type without the media it needs, on every platform', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'facebook']);
    const post = await item({
      content_type: 'carousel',
      media_urls: [IMAGE],
      target_platforms: ['twitter', 'facebook'],
    });
    await publish(runtime, ws.workspace, post.id);
    expect(await run()).toEqual(['failed']);
    for (const result of (await contentRow(runtime, post.id))!.publishResults) expect(result.error).toMatch(/carousel/);
  });

  it('an empty publish bucket defers scheduled items to the next window; other workspaces go on', async () => {
    runtime = await testRuntime({ env: { RATE_LIMIT_PUBLISH: '2' } });
    ws = await makeWorkspace(runtime, { name: 'Busy' });
    const other = await makeWorkspace(runtime, { name: 'Calm' });
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    await connectAccounts(runtime, other.workspace, ['twitter']);
    const at = runtime.clock.now().toISOString();
    const busy = await inOrder([1, 2, 3], async () =>
      item({ target_platforms: ['twitter'], status: 'scheduled', scheduled_for: at }),
    );
    const calm = await makeContent(runtime, other.workspace, {
      media_urls: [IMAGE],
      target_platforms: ['twitter'],
      status: 'scheduled',
      scheduled_for: at,
    });

    expect(await run()).toHaveLength(3);
    expect((await inOrder(busy, async (b) => (await contentRow(runtime, b.id))!.status)).sort()).toEqual([
      'published',
      'published',
      'scheduled',
    ]);
    expect((await contentRow(runtime, calm.id))!.status).toBe('published');
    const waiting =
      busy[(await inOrder(busy, async (b) => (await contentRow(runtime, b.id))!.status)).indexOf('scheduled')]!;
    // Never failed: still queued, and no event says otherwise.
    expect((await contentRow(runtime, waiting.id))!.publishQueued).toBe(true);
    expect(await eventsOfType('content.publish_failed')).toHaveLength(0);

    runtime.clock.advance(29_000); // 12:00:59: same window
    expect(await run()).toEqual([]);
    expect((await contentRow(runtime, waiting.id))!).toMatchObject({ status: 'scheduled', publishQueued: true });
    runtime.clock.advance(1_000); // 12:01:00: the window rolls over
    expect(await run()).toEqual(['published']);
    expect((await contentRow(runtime, waiting.id))!.status).toBe('published');
  });

  it('items queued by POST publish took their bucket at the request: the run takes no second one', async () => {
    runtime = await testRuntime({ env: { RATE_LIMIT_PUBLISH: '1' } });
    ws = await makeWorkspace(runtime, { name: 'One' });
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    const post = await item({ target_platforms: ['twitter'] });
    // Through the request path, so the call takes the bucket's only token.
    await executeOperation(contextFor(runtime, ws.workspace, 'rest'), publishContent, { id: post.id });
    await expect(consumeRateLimit(runtime, ws.workspace.id, ['publish'])).rejects.toThrow(RateLimitError);
    expect(await run()).toEqual(['published']);
  });

  it('quota reached: a due item fails on every platform with the reason, without calling them', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    await setWorkspacePlan(runtime, ws.workspace.id, { plan: 'starter' });
    await insertPublished(runtime, ws.workspace.id, 299, runtime.clock.now());
    const at = runtime.clock.now().toISOString();
    const last = await item({ target_platforms: ['twitter', 'linkedin'], status: 'scheduled', scheduled_for: at });
    const over = await item({ target_platforms: ['twitter', 'linkedin'], status: 'scheduled', scheduled_for: at });

    expect(await run()).toEqual(['published']);
    // Both came due at once; which one got the last slot depends on id order.
    const [won, lost] = (await contentRow(runtime, last.id))!.status === 'published' ? [last, over] : [over, last];
    expect((await contentRow(runtime, won.id))!.status).toBe('published');
    const row = (await contentRow(runtime, lost.id))!;
    expect(row).toMatchObject({ status: 'approved', publishQueued: false });
    expect(row.publishResults).toHaveLength(2);
    for (const result of row.publishResults) expect(result.error).toMatch(/monthly post quota reached.*300/);
    expect(await sandboxPostsFor(runtime, lost.id)).toHaveLength(0);
    const failed = await eventsOfType('content.publish_failed');
    expect(failed).toHaveLength(1);
    expect((failed[0]!.data.content as { id: string }).id).toBe(lost.id);
    // POST publish itself now refuses with quota_exceeded.
    const current = await getWorkspace(runtime.db, ws.workspace.id);
    await expect(publish(runtime, current, lost.id)).rejects.toThrow(
      expect.objectContaining({ code: 'quota_exceeded' }),
    );
  });

  it('quota is reserved at claim: items in flight count, so concurrent items never overshoot it', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    await setWorkspacePlan(runtime, ws.workspace.id, { plan: 'starter' });
    await insertPublished(runtime, ws.workspace.id, 298, runtime.clock.now());
    const at = runtime.clock.now().toISOString();
    const posts = await inOrder([1, 2, 3], async () =>
      item({ target_platforms: ['twitter'], status: 'scheduled', scheduled_for: at }),
    );
    const { claims, refused, deferred } = await claimDuePublishes(runtime, 10);
    // The third fits only if one in flight fails: it waits for their outcome instead of failing now.
    expect({ claimed: claims.length, refused, deferred }).toEqual({ claimed: 2, refused: 0, deferred: 1 });
    expect(await claimDuePublishes(runtime, 10)).toMatchObject({ claims: [], refused: 0, deferred: 1 });
    await Promise.all(claims.map((c) => fanOut(runtime, connectorsFor(runtime), c)));
    expect(await claimDuePublishes(runtime, 10)).toMatchObject({ claims: [], refused: 1, deferred: 0 });
    expect((await inOrder(posts, async (p) => (await contentRow(runtime, p.id))!.status)).sort()).toEqual([
      'approved',
      'published',
      'published',
    ]);
  });

  it('an item waiting on the quota goes out when an item in flight fails and frees its slot', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    await setWorkspacePlan(runtime, ws.workspace.id, { plan: 'starter' });
    await insertPublished(runtime, ws.workspace.id, 299, runtime.clock.now());
    const doomed = await item({ target_platforms: ['twitter'], caption: 'x'.repeat(400) }); // too long for X
    await publish(runtime, ws.workspace, doomed.id);
    const first = await claimDuePublishes(runtime, 10);
    expect(first.claims.map((c) => c.contentId)).toEqual([doomed.id]);
    const waiting = await item({ target_platforms: ['twitter'] });
    await publish(runtime, ws.workspace, waiting.id);
    expect(await claimDuePublishes(runtime, 10)).toMatchObject({ claims: [], deferred: 1 });
    expect(await fanOut(runtime, connectorsFor(runtime), first.claims[0]!)).toBe('failed');
    expect(await run()).toEqual(['published']);
    expect((await contentRow(runtime, waiting.id))!.status).toBe('published');
  });

  it('claims an item scheduled before 1970 (a negative due time) like any other', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    const post = await item({ target_platforms: ['twitter'], status: 'scheduled', scheduled_for: TEST_START });
    // Requests refuse such a time now; a row stored before they did may still hold one.
    await runtime.db
      .update(content)
      .set({ scheduledFor: new Date('1969-07-20T20:17:00Z') })
      .where(eq(content.id, post.id))
      .run();
    expect(await run()).toEqual(['published']);
    expect((await contentRow(runtime, post.id))!.status).toBe('published');
  });

  it('a connector whose rules throw rejects that platform with the reason; the others go on', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    const connectors = connectorsWith(runtime, {
      twitter: {
        validate: () => {
          throw new Error('rules table missing');
        },
      },
    });
    const post = await item({ target_platforms: ['twitter', 'linkedin'] });
    await publish(runtime, ws.workspace, post.id);
    expect(await run(connectors)).toEqual(['published']);
    const [twitter] = (await contentRow(runtime, post.id))!.publishResults;
    expect(twitter).toMatchObject({ platform: 'twitter', success: false });
    expect(twitter!.error).toMatch(/could not be checked \(rules table missing\)/);
  });

  it('a run that fails for a reason of our own writes nothing half-done and is finished with the error', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    const post = await item({ target_platforms: ['twitter', 'linkedin'] });
    await publish(runtime, ws.workspace, post.id);
    const [claim] = (await claimDuePublishes(runtime, 10)).claims;
    // Breaks after twitter's attempt is recorded: the step's savepoint must take that write back.
    const base = connectorsFor(runtime);
    const broken = new Map(base);
    broken.set('linkedin', {
      ...base.get('linkedin')!,
      get platform(): never {
        throw new Error('connector misconfigured');
      },
    });
    await expect(fanOut(runtime, broken, claim!)).rejects.toThrow('connector misconfigured');
    expect(await attemptsFor(runtime, post.id)).toEqual([]);
    expect((await contentRow(runtime, post.id))!.status).toBe('publishing');

    expect(await abandonRun(runtime, claim!, new Error('connector misconfigured'))).toBe('failed');
    const row = (await contentRow(runtime, post.id))!;
    expect(row).toMatchObject({ status: 'approved', publishQueued: false, leaseToken: null });
    for (const result of row.publishResults)
      expect(result.error).toBe('internal error while publishing: connector misconfigured');
    expect(await sandboxPostsFor(runtime, post.id)).toEqual([]);
    expect(await eventsOfType('content.publish_failed')).toHaveLength(1);
  });

  it('a workspace whose subscription lapsed publishes nothing; its items fail with the reason', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    const post = await item({
      target_platforms: ['twitter'],
      status: 'scheduled',
      scheduled_for: runtime.clock.now().toISOString(),
    });
    await setWorkspacePlan(runtime, ws.workspace.id, { status: 'past_due' });
    expect(await run()).toEqual([]);
    expect((await contentRow(runtime, post.id))!).toMatchObject({ status: 'approved', publishQueued: false });
    expect((await contentRow(runtime, post.id))!.publishResults[0]!.error).toMatch(
      /past_due: publish the item again once/,
    );
  });

  describe('crash safety', () => {
    it('a reclaimed item keeps recorded outcomes, reports pending attempts as unknown and calls only untried platforms', async () => {
      await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin', 'facebook']);
      const post = await item({ target_platforms: ['twitter', 'linkedin', 'facebook'] });
      await publish(runtime, ws.workspace, post.id);
      // The first holder: twitter answers, linkedin never does, and then the process "dies".
      const hanging = connectorsWith(runtime, { linkedin: { publish: () => new Promise(() => {}) } });
      const [claim] = (await claimDuePublishes(runtime, 10)).claims;
      void fanOut(runtime, hanging, claim!);
      // Each answer is recorded as it comes; linkedin's call stays out.
      await vi.waitFor(async () =>
        expect((await attemptsFor(runtime, post.id)).map((a) => [a.platform, a.status]).sort()).toEqual([
          ['facebook', 'published'],
          ['linkedin', 'pending'],
          ['twitter', 'published'],
        ]),
      );

      // Before the lease runs out nobody else may take it.
      expect((await claimDuePublishes(runtime, 10)).claims).toHaveLength(0);
      runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000);
      expect(await run()).toEqual(['published']);

      const row = (await contentRow(runtime, post.id))!;
      expect(row.status).toBe('published');
      expect(row.publishResults.map((r) => [r.platform, r.success, r.error])).toEqual([
        ['twitter', true, null],
        ['linkedin', false, UNKNOWN_OUTCOME],
        ['facebook', true, null],
      ]);
      // No platform was called twice; linkedin was never called again.
      expect((await sandboxPostsFor(runtime, post.id)).map((p) => p.platform)).toEqual(['facebook', 'twitter']);
      expect(await eventsOfType('content.published')).toHaveLength(1);
    });

    it('a reclaimed item whose holder died before recording any attempt is published from scratch', async () => {
      await connectAccounts(runtime, ws.workspace, ['twitter']);
      const post = await item({ target_platforms: ['twitter'] });
      await publish(runtime, ws.workspace, post.id);
      expect((await claimDuePublishes(runtime, 10)).claims).toHaveLength(1); // claimed, then the holder dies
      runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000);
      expect(await run()).toEqual(['published']);
      expect(await sandboxPostsFor(runtime, post.id)).toHaveLength(1);
    });

    /** Connectors whose X publish waits, as a call outlasting its lease would, until `answer()` is called. */
    function stalledTwitter() {
      let answer!: () => void;
      const connectors = connectorsWith(runtime, {
        twitter: {
          publish: () =>
            new Promise(
              (resolve) => (answer = () => resolve({ status: 'published', platformPostId: 'late', url: null })),
            ),
        },
      });
      return { connectors, answer: () => answer() };
    }

    it('after a reclaim, the old holder finishing late writes nothing', async () => {
      await connectAccounts(runtime, ws.workspace, ['twitter']);
      const post = await item({ target_platforms: ['twitter'] });
      await publish(runtime, ws.workspace, post.id);
      const { connectors: slow, answer } = stalledTwitter();
      const [claim] = (await claimDuePublishes(runtime, 10)).claims;
      const late = fanOut(runtime, slow, claim!);
      await vi.waitFor(async () =>
        expect((await attemptsFor(runtime, post.id)).map((a) => a.status)).toEqual(['pending']),
      );
      runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000);
      await run();
      const settled = (await contentRow(runtime, post.id))!;
      expect(settled.status).toBe('approved');
      expect(settled.publishResults[0]!.error).toBe(UNKNOWN_OUTCOME);

      answer();
      expect(await late).toBe('lease_lost');
      expect(await contentRow(runtime, post.id)).toEqual(settled);
      expect((await attemptsFor(runtime, post.id))[0]!.status).toBe('unknown');
      expect(await eventsOfType('content.publish_failed')).toHaveLength(1);
      expect(await eventsOfType('content.published')).toHaveLength(0);
    });

    it('a lease token that no longer matches extends nothing, and its holder stops without finishing the item', async () => {
      await connectAccounts(runtime, ws.workspace, ['twitter']);
      const post = await item({ target_platforms: ['twitter'] });
      await publish(runtime, ws.workspace, post.id);
      const { connectors: slow, answer } = stalledTwitter();
      const [stale] = (await claimDuePublishes(runtime, 10)).claims;
      const late = fanOut(runtime, slow, stale!);
      await vi.waitFor(async () =>
        expect((await attemptsFor(runtime, post.id)).map((a) => a.status)).toEqual(['pending']),
      );
      // The holder stalls past its lease; another run takes the item over under a new token.
      runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000);
      const [current] = (await claimDuePublishes(runtime, 10)).claims;
      expect(current).toMatchObject({ contentId: post.id, runId: stale!.runId });
      expect(current!.leaseToken).not.toBe(stale!.leaseToken);
      const taken = (await contentRow(runtime, post.id))!;

      runtime.clock.advance(1000);
      expect(await renewLeases(runtime, [stale!])).toBe(0);
      expect(await contentRow(runtime, post.id)).toEqual(taken);
      // The same renewal under the current token does extend it, by a lease from now.
      expect(await renewLeases(runtime, [stale!, current!])).toBe(1);
      expect(await contentRow(runtime, post.id)).toMatchObject({
        leaseToken: current!.leaseToken,
        leaseExpiresAt: new Date(runtime.clock.now().getTime() + runtime.config.publishing.leaseSeconds * 1000),
      });

      // The old holder's answer comes: it records nothing and does not finish the item.
      answer();
      expect(await late).toBe('lease_lost');
      expect(await contentRow(runtime, post.id)).toMatchObject({
        status: 'publishing',
        leaseToken: current!.leaseToken,
      });
      expect((await attemptsFor(runtime, post.id)).map((a) => a.status)).toEqual(['pending']);
      expect(await eventsOfType('content.published')).toHaveLength(0);
    });

    it('a platform that throws or times out has an unknown outcome, reported and not retried', async () => {
      runtime = await testRuntime({ env: { PLATFORM_TIMEOUT_SECONDS: '1' } });
      ws = await makeWorkspace(runtime);
      await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
      const connectors = connectorsWith(runtime, {
        twitter: { publish: async () => Promise.reject(new Error('socket hang up')) },
        linkedin: { publish: () => new Promise(() => {}) },
      });
      const post = await item({ target_platforms: ['twitter', 'linkedin'] });
      await publish(runtime, ws.workspace, post.id);
      expect(await run(connectors)).toEqual(['failed']);
      for (const result of (await contentRow(runtime, post.id))!.publishResults)
        expect(result.error).toBe(UNKNOWN_OUTCOME);
      expect((await attemptsFor(runtime, post.id)).map((a) => a.status)).toEqual(['unknown', 'unknown']);
    });
  });

  it('never touches another workspace: one run publishes each workspace with its own accounts', async () => {
    const other = await makeWorkspace(runtime, { name: 'Other' });
    await connectAccounts(runtime, other.workspace, ['twitter']);
    const mine = await item({ target_platforms: ['twitter'] });
    await publish(runtime, ws.workspace, mine.id);
    await run();
    // The other workspace's twitter account is not ours to post with.
    expect((await contentRow(runtime, mine.id))!.publishResults[0]!.error).toMatch(/No connected twitter account/);
  });
});
