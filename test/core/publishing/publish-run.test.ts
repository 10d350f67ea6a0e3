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
import { makeContent, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
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
  beforeEach(() => {
    runtime = testRuntime();
    ws = makeWorkspace(runtime, { name: 'Acme' });
  });

  const run = (connectors = connectorsFor(runtime)) => drain(runtime, publishingJob(runtime, connectors));
  const eventsOfType = (type: string, workspaceId = ws.workspace.id) =>
    eventsOf(runtime, workspaceId).filter((e) => e.type === type);
  const item = (input: Record<string, unknown>) =>
    makeContent(runtime, ws.workspace, { media_urls: [IMAGE], ...input });

  it('publishes an immediate publish on every platform: published_at, publish_results and content.published', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin', 'facebook']);
    const post = item({
      caption: 'Launch day',
      target_platforms: ['twitter', 'linkedin', 'facebook'],
      hashtags: ['launch'],
    });
    const queued = publish(runtime, ws.workspace, post.id);
    expect(queued).toMatchObject({ status: 'approved', publish_queued: true });

    expect(await run()).toEqual(['published']);
    const row = contentRow(runtime, post.id)!;
    expect(row).toMatchObject({ status: 'published', publishQueued: false, leaseToken: null, publishRunId: null });
    expect(row.publishedAt?.toISOString()).toBe(runtime.clock.now().toISOString());
    expect(row.publishResults.map((r) => [r.platform, r.success, r.error])).toEqual([
      ['twitter', true, null],
      ['linkedin', true, null],
      ['facebook', true, null],
    ]);
    const received = sandboxPostsFor(runtime, post.id);
    expect(received.map((p) => p.platform)).toEqual(['facebook', 'linkedin', 'twitter']);
    expect(received[0]!.text).toBe('Launch day\n\n#launch');

    const [event] = eventsOfType('content.published');
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
    expect(eventsOfType('content.publish_failed')).toHaveLength(0);
    // Nothing is left to do: a second pass claims nothing and posts nothing more.
    expect(await run()).toEqual([]);
    expect(sandboxPostsFor(runtime, post.id)).toHaveLength(3);
  });

  it('holds a future schedule until its time, then publishes it', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter']);
    const post = item({ target_platforms: ['twitter'] });
    const at = new Date(runtime.clock.now().getTime() + 3_600_000);
    expect(publish(runtime, ws.workspace, post.id, { scheduled_for: at.toISOString() })).toMatchObject({
      status: 'scheduled',
    });

    runtime.clock.advance(3_599_999);
    expect(await run()).toEqual([]);
    expect(contentRow(runtime, post.id)!.status).toBe('scheduled');

    runtime.clock.advance(1);
    expect(await run()).toEqual(['published']);
    expect(contentRow(runtime, post.id)!.status).toBe('published');
  });

  it('publishes items scheduled by PATCH status=scheduled and by create with status scheduled', async () => {
    connectAccounts(runtime, ws.workspace, ['linkedin']);
    const at = new Date(runtime.clock.now().getTime() + 60_000).toISOString();
    const patched = item({ target_platforms: ['linkedin'] });
    update(runtime, ws.workspace, patched.id, { status: 'scheduled', scheduled_for: at });
    const created = item({ target_platforms: ['linkedin'], status: 'scheduled', scheduled_for: at });
    const draft = item({ target_platforms: ['linkedin'] });

    expect(await run()).toEqual([]);
    runtime.clock.advance(60_000);
    expect(await run()).toHaveLength(2);
    expect(contentRow(runtime, patched.id)!.status).toBe('published');
    expect(contentRow(runtime, created.id)!.status).toBe('published');
    expect(contentRow(runtime, draft.id)!.status).toBe('draft');
  });

  it('partial success: published, and the rejecting platform carries its error and no post id', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    const post = item({ caption: 'x'.repeat(300), target_platforms: ['twitter', 'linkedin'] });
    publish(runtime, ws.workspace, post.id);
    await run();

    const row = contentRow(runtime, post.id)!;
    expect(row.status).toBe('published');
    const [event] = eventsOfType('content.published');
    const platforms = event!.data.platforms as Array<Record<string, unknown>>;
    expect(platforms[0]).toMatchObject({ platform: 'twitter', success: false, platform_post_id: null });
    expect(platforms[0]!.error).toMatch(/280/);
    expect(platforms[1]).toMatchObject({ platform: 'linkedin', success: true, error: null });
    expect(platforms[1]!.platform_post_id).toEqual(expect.any(String));
    expect(sandboxPostsFor(runtime, post.id).map((p) => p.platform)).toEqual(['linkedin']);
  });

  it('a platform that refuses at publish time counts as a rejection', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter', 'facebook']);
    const connectors = connectorsWith(runtime, {
      facebook: { publish: async () => ({ status: 'rejected', error: 'facebook: page token expired' }) },
    });
    const post = item({ target_platforms: ['twitter', 'facebook'] });
    publish(runtime, ws.workspace, post.id);
    await run(connectors);
    expect(contentRow(runtime, post.id)!.publishResults.map((r) => [r.platform, r.success, r.error])).toEqual([
      ['twitter', true, null],
      ['facebook', false, 'facebook: page token expired'],
    ]);
  });

  it('total failure: back to approved, not queued, content.publish_failed without platform_post_id', async () => {
    connectAccounts(runtime, ws.workspace, ['instagram']);
    // Instagram needs media; twitter has no connected account.
    const post = item({ content_type: 'text_only', media_urls: [], target_platforms: ['instagram', 'twitter'] });
    publish(runtime, ws.workspace, post.id);
    expect(await run()).toEqual(['failed']);

    const row = contentRow(runtime, post.id)!;
    expect(row).toMatchObject({ status: 'approved', publishQueued: false, publishedAt: null, leaseToken: null });
    const [event] = eventsOfType('content.publish_failed');
    expect(Object.keys(event!.data)).toEqual(['content', 'failed_at', 'platforms']);
    expect(event!.data.content).toEqual({ id: post.id, object: 'content' });
    expect(event!.data.failed_at).toBe(runtime.clock.now().toISOString());
    const platforms = event!.data.platforms as Array<Record<string, unknown>>;
    for (const entry of platforms) expect(Object.keys(entry)).toEqual(['platform', 'success', 'error']);
    expect(platforms.map((p) => p.platform)).toEqual(['instagram', 'twitter']);
    expect(platforms[0]!.error).toMatch(/instagram/i);
    expect(platforms[1]!.error).toMatch(/No connected twitter account/);
    expect(eventsOfType('content.published')).toHaveLength(0);
    expect(sandboxPostsFor(runtime, post.id)).toHaveLength(0);
    // It stays failed: nothing is retried on its own.
    expect(await run()).toEqual([]);
  });

  it('rejects a platform whose account was disconnected (inactive), and an unknown platform id', async () => {
    const accounts = connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    disconnectSocialAccount(runtime, accounts.twitter.id);
    const post = item({ target_platforms: ['twitter', 'linkedin', 'myspace'] });
    publish(runtime, ws.workspace, post.id);
    await run();
    const results = contentRow(runtime, post.id)!.publishResults;
    expect(results.map((r) => [r.platform, r.success])).toEqual([
      ['twitter', false],
      ['linkedin', true],
      ['myspace', false],
    ]);
    expect(results[0]!.error).toMatch(/inactive/);
    expect(results[2]!.error).toMatch(/Unknown platform "myspace"/);
  });

  it('applies platform_specific overrides before each platform validates', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin', 'instagram']);
    const post = item({
      caption: 'y'.repeat(400),
      media_urls: [],
      content_type: 'single_image',
      target_platforms: ['twitter', 'linkedin', 'instagram'],
      platform_specific: {
        twitter: { caption: 'Short for X', media_urls: [IMAGE] },
        instagram: { media_urls: [IMAGE, IMAGE2], hashtags: ['gram'] },
      },
    });
    publish(runtime, ws.workspace, post.id);
    await run();
    const results = contentRow(runtime, post.id)!.publishResults;
    // linkedin gets the base item: a single_image without media.
    expect(results.map((r) => [r.platform, r.success])).toEqual([
      ['twitter', true],
      ['linkedin', false],
      ['instagram', true],
    ]);
    expect(results[1]!.error).toMatch(/media/);
    const received = Object.fromEntries(sandboxPostsFor(runtime, post.id).map((p) => [p.platform, p]));
    expect(received.twitter).toMatchObject({ text: 'Short for X', mediaUrls: [IMAGE] });
    expect(received.instagram).toMatchObject({ text: `${'y'.repeat(400)}\n\n#gram`, mediaUrls: [IMAGE, IMAGE2] });
  });

  it("sends every post in its workspace's default language, and none where the workspace sets none", async () => {
    const other = makeWorkspace(runtime, { name: 'Other' });
    runtime.db.update(workspaces).set({ defaultLanguage: 'pt-BR' }).where(eq(workspaces.id, ws.workspace.id)).run();
    connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    connectAccounts(runtime, other.workspace, ['twitter']);
    const sent: Array<[string, string, string[]]> = [];
    const recording = (platform: 'twitter' | 'linkedin') => ({
      publish: async (post: PlatformPost, target: PublishTarget) => {
        sent.push([target.account.workspaceId, platform, post.languages]);
        return { status: 'published' as const, platformPostId: `${platform}_${sent.length}`, url: null };
      },
    });
    const ours = item({ caption: 'Olá', target_platforms: ['twitter', 'linkedin'] });
    const theirs = makeContent(runtime, other.workspace, { media_urls: [IMAGE], target_platforms: ['twitter'] });
    publish(runtime, ws.workspace, ours.id);
    publish(runtime, other.workspace, theirs.id);
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
    connectAccounts(runtime, ws.workspace, ['twitter', 'facebook']);
    const post = item({ content_type: 'carousel', media_urls: [IMAGE], target_platforms: ['twitter', 'facebook'] });
    publish(runtime, ws.workspace, post.id);
    expect(await run()).toEqual(['failed']);
    for (const result of contentRow(runtime, post.id)!.publishResults) expect(result.error).toMatch(/carousel/);
  });

  it('an empty publish bucket defers scheduled items to the next window; other workspaces go on', async () => {
    runtime = testRuntime({ env: { RATE_LIMIT_PUBLISH: '2' } });
    ws = makeWorkspace(runtime, { name: 'Busy' });
    const other = makeWorkspace(runtime, { name: 'Calm' });
    connectAccounts(runtime, ws.workspace, ['twitter']);
    connectAccounts(runtime, other.workspace, ['twitter']);
    const at = runtime.clock.now().toISOString();
    const busy = [1, 2, 3].map(() => item({ target_platforms: ['twitter'], status: 'scheduled', scheduled_for: at }));
    const calm = makeContent(runtime, other.workspace, {
      media_urls: [IMAGE],
      target_platforms: ['twitter'],
      status: 'scheduled',
      scheduled_for: at,
    });

    expect(await run()).toHaveLength(3);
    expect(busy.map((b) => contentRow(runtime, b.id)!.status).sort()).toEqual(['published', 'published', 'scheduled']);
    expect(contentRow(runtime, calm.id)!.status).toBe('published');
    const waiting = busy.find((b) => contentRow(runtime, b.id)!.status === 'scheduled')!;
    // Never failed: still queued, and no event says otherwise.
    expect(contentRow(runtime, waiting.id)!.publishQueued).toBe(true);
    expect(eventsOfType('content.publish_failed')).toHaveLength(0);

    runtime.clock.advance(29_000); // 12:00:59: same window
    expect(await run()).toEqual([]);
    expect(contentRow(runtime, waiting.id)!).toMatchObject({ status: 'scheduled', publishQueued: true });
    runtime.clock.advance(1_000); // 12:01:00: the window rolls over
    expect(await run()).toEqual(['published']);
    expect(contentRow(runtime, waiting.id)!.status).toBe('published');
  });

  it('items queued by POST publish took their bucket at the request: the run takes no second one', async () => {
    runtime = testRuntime({ env: { RATE_LIMIT_PUBLISH: '1' } });
    ws = makeWorkspace(runtime, { name: 'One' });
    connectAccounts(runtime, ws.workspace, ['twitter']);
    const post = item({ target_platforms: ['twitter'] });
    // Through the request path, so the call takes the bucket's only token.
    await executeOperation(contextFor(runtime, ws.workspace, 'rest'), publishContent, { id: post.id });
    expect(() => consumeRateLimit(runtime, ws.workspace.id, ['publish'])).toThrow(RateLimitError);
    expect(await run()).toEqual(['published']);
  });

  it('quota reached: a due item fails on every platform with the reason, without calling them', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    setWorkspacePlan(runtime, ws.workspace.id, { plan: 'starter' });
    insertPublished(runtime, ws.workspace.id, 299, runtime.clock.now());
    const at = runtime.clock.now().toISOString();
    const last = item({ target_platforms: ['twitter', 'linkedin'], status: 'scheduled', scheduled_for: at });
    const over = item({ target_platforms: ['twitter', 'linkedin'], status: 'scheduled', scheduled_for: at });

    expect(await run()).toEqual(['published']);
    // Both came due at once; which one got the last slot depends on id order.
    const [won, lost] = contentRow(runtime, last.id)!.status === 'published' ? [last, over] : [over, last];
    expect(contentRow(runtime, won.id)!.status).toBe('published');
    const row = contentRow(runtime, lost.id)!;
    expect(row).toMatchObject({ status: 'approved', publishQueued: false });
    expect(row.publishResults).toHaveLength(2);
    for (const result of row.publishResults) expect(result.error).toMatch(/monthly post quota reached.*300/);
    expect(sandboxPostsFor(runtime, lost.id)).toHaveLength(0);
    const failed = eventsOfType('content.publish_failed');
    expect(failed).toHaveLength(1);
    expect((failed[0]!.data.content as { id: string }).id).toBe(lost.id);
    // POST publish itself now refuses with quota_exceeded.
    const current = getWorkspace(runtime.db, ws.workspace.id);
    expect(() => publish(runtime, current, lost.id)).toThrow(expect.objectContaining({ code: 'quota_exceeded' }));
  });

  it('quota is reserved at claim: items in flight count, so concurrent items never overshoot it', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter']);
    setWorkspacePlan(runtime, ws.workspace.id, { plan: 'starter' });
    insertPublished(runtime, ws.workspace.id, 298, runtime.clock.now());
    const at = runtime.clock.now().toISOString();
    const posts = [1, 2, 3].map(() => item({ target_platforms: ['twitter'], status: 'scheduled', scheduled_for: at }));
    const { claims, refused, deferred } = claimDuePublishes(runtime, 10);
    // The third fits only if one in flight fails: it waits for their outcome instead of failing now.
    expect({ claimed: claims.length, refused, deferred }).toEqual({ claimed: 2, refused: 0, deferred: 1 });
    expect(claimDuePublishes(runtime, 10)).toMatchObject({ claims: [], refused: 0, deferred: 1 });
    await Promise.all(claims.map((c) => fanOut(runtime, connectorsFor(runtime), c)));
    expect(claimDuePublishes(runtime, 10)).toMatchObject({ claims: [], refused: 1, deferred: 0 });
    expect(posts.map((p) => contentRow(runtime, p.id)!.status).sort()).toEqual(['approved', 'published', 'published']);
  });

  it('an item waiting on the quota goes out when an item in flight fails and frees its slot', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter']);
    setWorkspacePlan(runtime, ws.workspace.id, { plan: 'starter' });
    insertPublished(runtime, ws.workspace.id, 299, runtime.clock.now());
    const doomed = item({ target_platforms: ['twitter'], caption: 'x'.repeat(400) }); // too long for X
    publish(runtime, ws.workspace, doomed.id);
    const first = claimDuePublishes(runtime, 10);
    expect(first.claims.map((c) => c.contentId)).toEqual([doomed.id]);
    const waiting = item({ target_platforms: ['twitter'] });
    publish(runtime, ws.workspace, waiting.id);
    expect(claimDuePublishes(runtime, 10)).toMatchObject({ claims: [], deferred: 1 });
    expect(await fanOut(runtime, connectorsFor(runtime), first.claims[0]!)).toBe('failed');
    expect(await run()).toEqual(['published']);
    expect(contentRow(runtime, waiting.id)!.status).toBe('published');
  });

  it('claims an item scheduled before 1970 (a negative due time) like any other', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter']);
    const post = item({ target_platforms: ['twitter'], status: 'scheduled', scheduled_for: TEST_START });
    // Requests refuse such a time now; a row stored before they did may still hold one.
    runtime.db
      .update(content)
      .set({ scheduledFor: new Date('1969-07-20T20:17:00Z') })
      .where(eq(content.id, post.id))
      .run();
    expect(await run()).toEqual(['published']);
    expect(contentRow(runtime, post.id)!.status).toBe('published');
  });

  it('a connector whose rules throw rejects that platform with the reason; the others go on', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    const connectors = connectorsWith(runtime, {
      twitter: {
        validate: () => {
          throw new Error('rules table missing');
        },
      },
    });
    const post = item({ target_platforms: ['twitter', 'linkedin'] });
    publish(runtime, ws.workspace, post.id);
    expect(await run(connectors)).toEqual(['published']);
    const [twitter] = contentRow(runtime, post.id)!.publishResults;
    expect(twitter).toMatchObject({ platform: 'twitter', success: false });
    expect(twitter!.error).toMatch(/could not be checked \(rules table missing\)/);
  });

  it('a run that fails for a reason of our own writes nothing half-done and is finished with the error', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    const post = item({ target_platforms: ['twitter', 'linkedin'] });
    publish(runtime, ws.workspace, post.id);
    const [claim] = claimDuePublishes(runtime, 10).claims;
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
    expect(attemptsFor(runtime, post.id)).toEqual([]);
    expect(contentRow(runtime, post.id)!.status).toBe('publishing');

    expect(await abandonRun(runtime, claim!, new Error('connector misconfigured'))).toBe('failed');
    const row = contentRow(runtime, post.id)!;
    expect(row).toMatchObject({ status: 'approved', publishQueued: false, leaseToken: null });
    for (const result of row.publishResults)
      expect(result.error).toBe('internal error while publishing: connector misconfigured');
    expect(sandboxPostsFor(runtime, post.id)).toEqual([]);
    expect(eventsOfType('content.publish_failed')).toHaveLength(1);
  });

  it('a workspace whose subscription lapsed publishes nothing; its items fail with the reason', async () => {
    connectAccounts(runtime, ws.workspace, ['twitter']);
    const post = item({
      target_platforms: ['twitter'],
      status: 'scheduled',
      scheduled_for: runtime.clock.now().toISOString(),
    });
    setWorkspacePlan(runtime, ws.workspace.id, { status: 'past_due' });
    expect(await run()).toEqual([]);
    expect(contentRow(runtime, post.id)!).toMatchObject({ status: 'approved', publishQueued: false });
    expect(contentRow(runtime, post.id)!.publishResults[0]!.error).toMatch(/past_due: publish the item again once/);
  });

  describe('crash safety', () => {
    it('a reclaimed item keeps recorded outcomes, reports pending attempts as unknown and calls only untried platforms', async () => {
      connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin', 'facebook']);
      const post = item({ target_platforms: ['twitter', 'linkedin', 'facebook'] });
      publish(runtime, ws.workspace, post.id);
      // The first holder: twitter answers, linkedin never does, and then the process "dies".
      const hanging = connectorsWith(runtime, { linkedin: { publish: () => new Promise(() => {}) } });
      const [claim] = claimDuePublishes(runtime, 10).claims;
      void fanOut(runtime, hanging, claim!);
      // Each answer is recorded as it comes; linkedin's call stays out.
      await vi.waitFor(() =>
        expect(
          attemptsFor(runtime, post.id)
            .map((a) => [a.platform, a.status])
            .sort(),
        ).toEqual([
          ['facebook', 'published'],
          ['linkedin', 'pending'],
          ['twitter', 'published'],
        ]),
      );

      // Before the lease runs out nobody else may take it.
      expect(claimDuePublishes(runtime, 10).claims).toHaveLength(0);
      runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000);
      expect(await run()).toEqual(['published']);

      const row = contentRow(runtime, post.id)!;
      expect(row.status).toBe('published');
      expect(row.publishResults.map((r) => [r.platform, r.success, r.error])).toEqual([
        ['twitter', true, null],
        ['linkedin', false, UNKNOWN_OUTCOME],
        ['facebook', true, null],
      ]);
      // No platform was called twice; linkedin was never called again.
      expect(sandboxPostsFor(runtime, post.id).map((p) => p.platform)).toEqual(['facebook', 'twitter']);
      expect(eventsOfType('content.published')).toHaveLength(1);
    });

    it('a reclaimed item whose holder died before recording any attempt is published from scratch', async () => {
      connectAccounts(runtime, ws.workspace, ['twitter']);
      const post = item({ target_platforms: ['twitter'] });
      publish(runtime, ws.workspace, post.id);
      expect(claimDuePublishes(runtime, 10).claims).toHaveLength(1); // claimed, then the holder dies
      runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000);
      expect(await run()).toEqual(['published']);
      expect(sandboxPostsFor(runtime, post.id)).toHaveLength(1);
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
      connectAccounts(runtime, ws.workspace, ['twitter']);
      const post = item({ target_platforms: ['twitter'] });
      publish(runtime, ws.workspace, post.id);
      const { connectors: slow, answer } = stalledTwitter();
      const [claim] = claimDuePublishes(runtime, 10).claims;
      const late = fanOut(runtime, slow, claim!);
      await vi.waitFor(() => expect(attemptsFor(runtime, post.id).map((a) => a.status)).toEqual(['pending']));
      runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000);
      await run();
      const settled = contentRow(runtime, post.id)!;
      expect(settled.status).toBe('approved');
      expect(settled.publishResults[0]!.error).toBe(UNKNOWN_OUTCOME);

      answer();
      expect(await late).toBe('lease_lost');
      expect(contentRow(runtime, post.id)).toEqual(settled);
      expect(attemptsFor(runtime, post.id)[0]!.status).toBe('unknown');
      expect(eventsOfType('content.publish_failed')).toHaveLength(1);
      expect(eventsOfType('content.published')).toHaveLength(0);
    });

    it('a lease token that no longer matches extends nothing, and its holder stops without finishing the item', async () => {
      connectAccounts(runtime, ws.workspace, ['twitter']);
      const post = item({ target_platforms: ['twitter'] });
      publish(runtime, ws.workspace, post.id);
      const { connectors: slow, answer } = stalledTwitter();
      const [stale] = claimDuePublishes(runtime, 10).claims;
      const late = fanOut(runtime, slow, stale!);
      await vi.waitFor(() => expect(attemptsFor(runtime, post.id).map((a) => a.status)).toEqual(['pending']));
      // The holder stalls past its lease; another run takes the item over under a new token.
      runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000);
      const [current] = claimDuePublishes(runtime, 10).claims;
      expect(current).toMatchObject({ contentId: post.id, runId: stale!.runId });
      expect(current!.leaseToken).not.toBe(stale!.leaseToken);
      const taken = contentRow(runtime, post.id)!;

      runtime.clock.advance(1000);
      expect(renewLeases(runtime, [stale!])).toBe(0);
      expect(contentRow(runtime, post.id)).toEqual(taken);
      // The same renewal under the current token does extend it, by a lease from now.
      expect(renewLeases(runtime, [stale!, current!])).toBe(1);
      expect(contentRow(runtime, post.id)).toMatchObject({
        leaseToken: current!.leaseToken,
        leaseExpiresAt: new Date(runtime.clock.now().getTime() + runtime.config.publishing.leaseSeconds * 1000),
      });

      // The old holder's answer comes: it records nothing and does not finish the item.
      answer();
      expect(await late).toBe('lease_lost');
      expect(contentRow(runtime, post.id)).toMatchObject({ status: 'publishing', leaseToken: current!.leaseToken });
      expect(attemptsFor(runtime, post.id).map((a) => a.status)).toEqual(['pending']);
      expect(eventsOfType('content.published')).toHaveLength(0);
    });

    it('a platform that throws or times out has an unknown outcome, reported and not retried', async () => {
      runtime = testRuntime({ env: { PLATFORM_TIMEOUT_SECONDS: '1' } });
      ws = makeWorkspace(runtime);
      connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
      const connectors = connectorsWith(runtime, {
        twitter: { publish: async () => Promise.reject(new Error('socket hang up')) },
        linkedin: { publish: () => new Promise(() => {}) },
      });
      const post = item({ target_platforms: ['twitter', 'linkedin'] });
      publish(runtime, ws.workspace, post.id);
      expect(await run(connectors)).toEqual(['failed']);
      for (const result of contentRow(runtime, post.id)!.publishResults) expect(result.error).toBe(UNKNOWN_OUTCOME);
      expect(attemptsFor(runtime, post.id).map((a) => a.status)).toEqual(['unknown', 'unknown']);
    });
  });

  it('never touches another workspace: one run publishes each workspace with its own accounts', async () => {
    const other = makeWorkspace(runtime, { name: 'Other' });
    connectAccounts(runtime, other.workspace, ['twitter']);
    const mine = item({ target_platforms: ['twitter'] });
    publish(runtime, ws.workspace, mine.id);
    await run();
    // The other workspace's twitter account is not ours to post with.
    expect(contentRow(runtime, mine.id)!.publishResults[0]!.error).toMatch(/No connected twitter account/);
  });
});
