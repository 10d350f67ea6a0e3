import { asc, eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { campaigns, content } from '../../../db/schema/index.ts';
import { spendAiCredits, usagePeriod } from '../../../src/core/accounts/usage.ts';
import { batchWriter } from '../../../src/core/campaigns/generation.ts';
import type { CaptionGenerator } from '../../../src/core/campaigns/generator.ts';
import { createCampaign, launchCampaign, updateCampaign } from '../../../src/core/campaigns/operations.ts';
import { deleteContent } from '../../../src/core/content/operations.ts';
import { contextFor } from '../../../src/core/context.ts';
import { runOperation } from '../../../src/core/operation.ts';
import { connectorsFor } from '../../../src/core/publishing/connectors/index.ts';
import { makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { connectAccounts, connectorsWith, publish, update } from '../../helpers/publishing.ts';
import { eventsOf } from '../../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { campaignGenerationJob } from '../../../src/jobs/campaign-generation.ts';
import { drain } from '../../../src/jobs/drain.ts';
import { publishingJob } from '../../../src/jobs/publish-run.ts';

const generator: CaptionGenerator = {
  name: 'fake',
  async generate(request) {
    return request.slots.map((slot) => ({ caption: `post ${slot.index}`, hashtags: ['launch'], topic: 'spring' }));
  },
};

const DAY = 86_400_000;

/** `campaign.completed`: the service completes an active campaign once generation and every item are done. */
describe('campaign completion', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  beforeEach(async () => {
    runtime = await testRuntime();
    ws = await makeWorkspace(runtime, { plan: 'business' });
    await connectAccounts(runtime, ws.workspace, ['twitter']);
  });

  const ctx = () => contextFor(runtime, ws.workspace, 'rest');
  const campaignRow = async (id: string) =>
    (await runtime.db.select().from(campaigns).where(eq(campaigns.id, id)).get())!;
  const itemIds = async (id: string) =>
    (
      await runtime.db
        .select({ id: content.id })
        .from(content)
        .where(eq(content.campaignId, id))
        .orderBy(asc(content.campaignSlot))
        .all()
    ).map((row) => row.id);
  const completedEvents = async () =>
    (await eventsOf(runtime, ws.workspace.id)).filter((e) => e.type === 'campaign.completed');
  const generate = () => drain(runtime, campaignGenerationJob(runtime, batchWriter([generator])));
  const publishNow = async (itemId: string, body: Record<string, unknown> = {}) => {
    // Generated items are single images: the sandbox wants the image before it takes the post.
    await update(runtime, ws.workspace, itemId, { media_urls: ['https://cdn.example.com/a.png'] });
    return publish(runtime, ws.workspace, itemId, body);
  };
  const runPublishing = (connectors = connectorsFor(runtime)) => drain(runtime, publishingJob(runtime, connectors));
  /** A launched campaign of `posts` items, its generation finished; the items await review. */
  const launched = async (posts: number) => {
    const { id } = (await runOperation(createCampaign, ctx(), {
      name: 'Spring',
      posts_per_day: 1,
      campaign_length_days: posts,
    })) as { id: string };
    await runOperation(launchCampaign, ctx(), { id });
    expect(await generate()).toEqual(['completed']);
    expect(await campaignRow(id)).toMatchObject({ status: 'active', generatedPosts: posts });
    return { id, items: await itemIds(id) };
  };

  it('completes when the last item publishes, not before, with exactly one event carrying the campaign', async () => {
    const { id, items } = await launched(2);
    expect(await completedEvents()).toHaveLength(0);

    await publishNow(items[0]!);
    await runPublishing();
    expect((await campaignRow(id)).status).toBe('active');
    expect(await completedEvents()).toHaveLength(0);

    await publishNow(items[1]!);
    runtime.clock.advance(1_000);
    await runPublishing();
    const row = await campaignRow(id);
    expect(row.status).toBe('completed');
    expect(row.updatedAt).toEqual(runtime.clock.now());
    const [event, ...more] = await completedEvents();
    expect(more).toHaveLength(0);
    expect(event!.data).toEqual({
      campaign: expect.objectContaining({
        id,
        object: 'campaign',
        status: 'completed',
        total_posts: 2,
        generated_posts: 2,
        updated_at: runtime.clock.now().toISOString(),
      }),
    });
    // Written with the last item's content.published, in the same commit, right after it.
    const types = (await eventsOf(runtime, ws.workspace.id)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['content.published', 'campaign.completed']);

    // Later changes to its items emit nothing more.
    await update(runtime, ws.workspace, items[0]!, { caption: 'edited after the fact' });
    await runOperation(deleteContent, ctx(), { id: items[1]! });
    expect(await completedEvents()).toHaveLength(1);
  });

  it('rejected, deleted and failed items are done; unreviewed, approved-not-published and scheduled ones hold it open', async () => {
    const { id, items } = await launched(4);
    const [rejected, deleted, failed, scheduled] = items as [string, string, string, string];
    const stillActive = async () => {
      expect((await campaignRow(id)).status).toBe('active');
      expect(await completedEvents()).toHaveLength(0);
    };

    await update(runtime, ws.workspace, rejected, { status: 'rejected' });
    await runOperation(deleteContent, ctx(), { id: deleted });
    await stillActive();

    // Approved but never published: awaits its publish call.
    await update(runtime, ws.workspace, failed, { status: 'approved' });
    await update(runtime, ws.workspace, scheduled, { status: 'approved' });
    await stillActive();

    // Every platform refuses: back to approved, no longer queued, a failed publish, done.
    await publishNow(failed);
    await runPublishing(
      connectorsWith(runtime, { twitter: { publish: async () => ({ status: 'rejected', error: 'refused' }) } }),
    );
    expect(await runtime.db.select().from(content).where(eq(content.id, failed)).get()).toMatchObject({
      status: 'approved',
      publishQueued: false,
    });
    await stillActive();

    // Scheduled for tomorrow: waits for the publishing run.
    await publishNow(scheduled, { scheduled_for: new Date(runtime.clock.now().getTime() + DAY).toISOString() });
    await runPublishing();
    await stillActive();

    runtime.clock.advance(DAY + 1_000);
    await runPublishing();
    expect((await campaignRow(id)).status).toBe('completed');
    expect(await completedEvents()).toHaveLength(1);
  });

  it('a campaign paused or archived by a person is never completed by the service', async () => {
    for (const status of ['paused', 'archived'] as const) {
      const { id, items } = await launched(1);
      await runOperation(updateCampaign, ctx(), { id, status });
      await publishNow(items[0]!);
      await runPublishing();
      expect((await campaignRow(id)).status).toBe(status);
    }
    expect(await completedEvents()).toHaveLength(0);
  });

  it('not while generation is unfinished; a relaunch whose generation ends with every item done completes it', async () => {
    // One AI credit left: generation stops after the first of two slots.
    await spendAiCredits(
      runtime.db,
      ws.workspace.id,
      usagePeriod(runtime.clock.now()),
      ws.workspace.features.monthly_ai_credits - 1,
    );
    const { id } = (await runOperation(createCampaign, ctx(), {
      name: 'Short',
      posts_per_day: 1,
      campaign_length_days: 2,
    })) as { id: string };
    await runOperation(launchCampaign, ctx(), { id });
    expect(await generate()).toEqual(['out_of_credits']);
    const [first] = await itemIds(id);
    await publishNow(first!);
    await runPublishing();
    expect(await campaignRow(id)).toMatchObject({ status: 'active', generatedPosts: 1 });

    // Next month the credits are back: paused and launched again, it writes the last slot.
    runtime.clock.advance(32 * DAY);
    await runOperation(updateCampaign, ctx(), { id, status: 'paused' });
    await runOperation(launchCampaign, ctx(), { id });
    expect(await generate()).toEqual(['completed']);
    const last = (await itemIds(id))[1]!;
    expect((await campaignRow(id)).status).toBe('active');
    await update(runtime, ws.workspace, last, { status: 'rejected' });
    expect((await campaignRow(id)).status).toBe('completed');

    // Paused and launched once more with nothing left to write: generation ends at once, and so
    // does the campaign, since every item is done.
    await runOperation(updateCampaign, ctx(), { id, status: 'paused' });
    await runOperation(launchCampaign, ctx(), { id });
    expect((await campaignRow(id)).status).toBe('active');
    expect(await generate()).toEqual(['completed']);
    expect((await campaignRow(id)).status).toBe('completed');
    expect(await completedEvents()).toHaveLength(2);
  });
});
