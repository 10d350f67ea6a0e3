import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { campaigns, content, templates, usagePeriods } from '../../../db/schema/index.ts';
import { spendAiCredits, usagePeriod } from '../../../src/core/accounts/usage.ts';
import { updateBrandProfile } from '../../../src/core/brand-profile/operations.ts';
import { deleteCampaign, launchCampaign, updateCampaign } from '../../../src/core/campaigns/operations.ts';
import { apportionContentTypes, contentTypeSequence, slotTime } from '../../../src/core/campaigns/calendar.ts';
import {
  claimDueGenerations,
  batchWriter,
  type BatchWriter,
  type GeneratorFailure,
  generationLeaseMs,
} from '../../../src/core/campaigns/generation.ts';
import { draftProblems, type CaptionGenerator, type GenerationRequest } from '../../../src/core/campaigns/generator.ts';
import { contextFor } from '../../../src/core/context.ts';
import { runOperation } from '../../../src/core/operation.ts';
import { inOrder, makeCampaign, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { connectAccounts } from '../../helpers/publishing.ts';
import { eventsOf } from '../../helpers/rest-expect.ts';
import { TEST_ENGINE, testRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { drain } from '../../../src/jobs/drain.ts';
import { campaignGenerationJob } from '../../../src/jobs/campaign-generation.ts';

/** Writes "<campaign> post <slot>" for each slot, and lets a test act while a batch is being written. */
function fakeGenerator(
  during?: (request: GenerationRequest) => void,
): CaptionGenerator & { calls: GenerationRequest[] } {
  const calls: GenerationRequest[] = [];
  return {
    name: 'fake',
    calls,
    async generate(request) {
      calls.push(request);
      during?.(request);
      return request.slots.map((slot) => ({
        caption: `${request.campaign.name} post ${slot.index}`,
        hashtags: ['launch'],
        topic: 'spring',
      }));
    },
  };
}

const DAY = 86_400_000;

describe('content mix apportionment', () => {
  it('adds the weights of keys that share a type, and splits by largest remainders', () => {
    expect([...apportionContentTypes({ ugc: 1, greenScreen: 1, carousel: 1 }, 10)]).toEqual([
      ['reel', 7],
      ['carousel', 3],
    ]);
    expect([...apportionContentTypes({ ugc: 1, slideshow: 1, talkingHead: 1 }, 10)]).toEqual([
      ['slideshow', 4],
      ['reel', 3],
      ['talking_head', 3],
    ]);
    expect([...apportionContentTypes({}, 5)]).toEqual([['single_image', 5]]);
    expect([...apportionContentTypes({ carousel: 0, videoHook: 2 }, 5)]).toEqual([['video_hook', 5]]);
  });

  it('sequences every slot with exactly the apportioned counts, spread out', () => {
    const mix = { ugc: 3, carousel: 1, videoHookDemo: 0.5 };
    const sequence = contentTypeSequence(mix, 18_250);
    const counts = new Map<string, number>();
    for (const type of sequence) counts.set(type, (counts.get(type) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(apportionContentTypes(mix, 18_250)));
    // No long runs: in any 10 consecutive slots the 3:1:0.5 mix shows at least two types.
    for (let i = 0; i + 10 <= sequence.length; i += 10)
      expect(new Set(sequence.slice(i, i + 10)).size).toBeGreaterThan(1);
  });

  it("spreads each day's slots over its 24 hours from the start date", () => {
    const start = new Date('2026-03-10T12:00:00.000Z');
    expect(slotTime(start, 4, 0).toISOString()).toBe('2026-03-10T15:00:00.000Z');
    expect(slotTime(start, 4, 3).toISOString()).toBe('2026-03-11T09:00:00.000Z');
    expect(slotTime(start, 4, 4).toISOString()).toBe('2026-03-11T15:00:00.000Z');
    expect(slotTime(start, 1, 364).getTime() - start.getTime()).toBe(364 * DAY + DAY / 2);
  });
});

describe('campaign generation', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  beforeEach(async () => {
    runtime = await testRuntime();
    ws = await makeWorkspace(runtime, { plan: 'business' });
  });

  const ctx = () => contextFor(runtime, ws.workspace, 'rest');
  const create = async (input: Record<string, unknown>) =>
    makeCampaign(runtime, ws.workspace, { name: 'Spring', ...input });
  const launch = async (id: string) => runOperation(launchCampaign, ctx(), { id });
  const campaignRow = async (id: string) => runtime.db.select().from(campaigns).where(eq(campaigns.id, id)).get();
  const itemsOf = async (id: string) =>
    runtime.db.select().from(content).where(eq(content.campaignId, id)).orderBy(asc(content.campaignSlot)).all();

  it('a 50 a day x 365 days campaign generates exactly 18,250 items, one per slot, with the mix apportioned exactly', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    const mix = { ugc: 2, carousel: 1, talkingHead: 1, greenScreen: 1 };
    const { id } = await create({ posts_per_day: 50, campaign_length_days: 365, content_mix: mix });
    const launched = await launch(id);
    const generator = fakeGenerator();
    expect(await drain(runtime, campaignGenerationJob(runtime, batchWriter([generator])))).toEqual(['completed']);

    const items = await itemsOf(id);
    expect(items).toHaveLength(18_250);
    expect(items.map((item) => item.campaignSlot)).toEqual(Array.from({ length: 18_250 }, (_, i) => i));
    const counts = new Map<string, number>();
    for (const item of items) counts.set(item.contentType, (counts.get(item.contentType) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(apportionContentTypes(mix, 18_250)));
    expect(Object.fromEntries(counts)).toEqual({ reel: 10_950, carousel: 3_650, talking_head: 3_650 });
    const start = new Date(launched.start_date);
    for (const item of [items[0]!, items[49]!, items[50]!, items.at(-1)!]) {
      expect(item).toMatchObject({
        status: 'pending_review',
        targetPlatforms: ['linkedin', 'twitter'],
        scheduledFor: slotTime(start, 50, item.campaignSlot!),
        publishQueued: false,
        caption: `Spring post ${item.campaignSlot}`,
      });
    }
    expect(await campaignRow(id)).toMatchObject({
      generatedPosts: 18_250,
      totalPosts: 18_250,
      status: 'active',
      generationDueAt: null,
    });
    expect((await eventsOf(runtime, ws.workspace.id)).filter((e) => e.type === 'content.created')).toHaveLength(18_250);
    const credits = await runtime.db
      .select()
      .from(usagePeriods)
      .where(eq(usagePeriods.workspaceId, ws.workspace.id))
      .get();
    expect(credits?.aiCreditsUsed).toBe(18_250);
    // Generated in batches, each read with the brand profile of its time.
    expect(generator.calls.length).toBeGreaterThan(10);
    expect(await drain(runtime, campaignGenerationJob(runtime, batchWriter([generator])))).toEqual([]);
  });

  it('generated_posts rises batch by batch as generation goes', async () => {
    const { id } = await create({ posts_per_day: 10, campaign_length_days: 120 });
    await launch(id);
    const seen: number[] = [];
    await drain(
      runtime,
      campaignGenerationJob(
        runtime,
        batchWriter([fakeGenerator(async () => seen.push((await campaignRow(id))!.generatedPosts))]),
      ),
    );
    // Each batch's drafts are written while the batch before it commits: the third batch (slots
    // 1000-1199) is written once the first has committed and while the second commits.
    expect(seen).toEqual([0, 0, 500]);
    expect((await campaignRow(id))!.generatedPosts).toBe(1200);
  });

  it('stops when the AI credits run out, having used exactly what was left', async () => {
    const starter = await makeWorkspace(runtime, { plan: 'starter' });
    const as = contextFor(runtime, starter.workspace, 'rest');
    await runtime.db
      .insert(usagePeriods)
      .values({
        workspaceId: starter.workspace.id,
        periodStart: usagePeriod(runtime.clock.now()).start,
        aiCreditsUsed: 380,
      })
      .run();
    const { id } = await makeCampaign(
      runtime,
      starter.workspace,
      { name: 'Small', posts_per_day: 50, campaign_length_days: 10 },
      { launch: true },
    );
    expect(await drain(runtime, campaignGenerationJob(runtime, batchWriter([fakeGenerator()])))).toEqual([
      'out_of_credits',
    ]);
    expect(await itemsOf(id)).toHaveLength(120);
    expect(await campaignRow(id)).toMatchObject({ generatedPosts: 120, status: 'active', generationDueAt: null });
    expect(
      (await runtime.db.select().from(usagePeriods).where(eq(usagePeriods.workspaceId, starter.workspace.id)).get())!
        .aiCreditsUsed,
    ).toBe(500);
    // Launching again needs credits: none are left this month.
    await runOperation(updateCampaign, as, { id, status: 'paused' });
    await expect(runOperation(launchCampaign, as, { id })).rejects.toThrow(
      expect.objectContaining({ code: 'quota_exceeded' }),
    );
  });

  it('a batch written ahead is dropped when the one before it commits short, and its slots are planned again', async () => {
    const starter = await makeWorkspace(runtime, { plan: 'starter' });
    const credits = async () =>
      (await runtime.db.select().from(usagePeriods).where(eq(usagePeriods.workspaceId, starter.workspace.id)).get())!;
    const { id } = await makeCampaign(
      runtime,
      starter.workspace,
      { name: 'Ahead', posts_per_day: 50, campaign_length_days: 8 },
      { launch: true },
    );
    const generator = { ...fakeGenerator(), maxSlotsPerCall: 100 };
    const inThread = batchWriter([generator]);
    const starts: number[] = [];
    const writer: BatchWriter = {
      batchSize: inThread.batchSize,
      async write(plan) {
        const from = plan.request.slots[0]!.index;
        starts.push(from);
        if (from !== 100) return inThread.write(plan);
        // While slots 100-199 are written, another campaign spends all but 50 of the month's
        // credits, so slots 0-99 commit only 0-49 ...
        await spendAiCredits(runtime.db, starter.workspace.id, usagePeriod(runtime.clock.now()), 450);
        const written = await inThread.write(plan);
        while ((await campaignRow(id))!.generatedPosts === 0) await new Promise((resolve) => setImmediate(resolve));
        // ... and then the month rolls over: credits again, but slots 100-199 no longer come next.
        await runtime.db
          .update(usagePeriods)
          .set({ aiCreditsUsed: 0 })
          .where(eq(usagePeriods.workspaceId, starter.workspace.id))
          .run();
        return written;
      },
    };
    expect(await drain(runtime, campaignGenerationJob(runtime, writer))).toEqual(['completed']);
    expect(starts.slice(0, 3)).toEqual([0, 100, 50]);
    expect((await itemsOf(id)).map((item) => item.campaignSlot)).toEqual(Array.from({ length: 400 }, (_, i) => i));
    expect((await credits()).aiCreditsUsed).toBe(350);
  });

  it('two campaigns generating at once never spend more credits than the month has', async () => {
    const starter = await makeWorkspace(runtime, { plan: 'starter' });
    const as = contextFor(runtime, starter.workspace, 'rest');
    const ids = await inOrder(
      ['First', 'Second'],
      async (name) =>
        (await makeCampaign(runtime, starter.workspace, { name, posts_per_day: 50, campaign_length_days: 6 })).id,
    );
    for (const id of ids) await runOperation(launchCampaign, as, { id });
    // Both are claimed in one pass and plan all 300 of their posts against the same 500 credits
    // before either commits; the second commit finds 200 left.
    expect((await drain(runtime, campaignGenerationJob(runtime, batchWriter([fakeGenerator()])))).sort()).toEqual([
      'completed',
      'out_of_credits',
    ]);
    const written = await inOrder(ids, async (id) => (await itemsOf(id)).length);
    expect(written.sort()).toEqual([200, 300]);
    expect(
      (await runtime.db.select().from(usagePeriods).where(eq(usagePeriods.workspaceId, starter.workspace.id)).get())!
        .aiCreditsUsed,
    ).toBe(500);
  });

  it('a pause while a batch is being written stops generation: nothing more is written', async () => {
    const { id } = await create({ posts_per_day: 50, campaign_length_days: 30 });
    await launch(id);
    let writtenAtPause: number | undefined;
    const generator = fakeGenerator(async (request) => {
      if (request.slots[0]!.index !== 1000) return;
      writtenAtPause = (await itemsOf(id)).length;
      await runOperation(updateCampaign, ctx(), { id, status: 'paused' });
    });
    expect(await drain(runtime, campaignGenerationJob(runtime, batchWriter([generator])))).toEqual(['stopped']);
    // Slots 1000-1499 are written while slots 500-999 wait to commit: the batch being written is never
    // written. The one waiting to commit is not either on SQLite, where the pause goes first in the one
    // writer; on PostgreSQL the two commit in whichever order they reach the campaign's row.
    expect(writtenAtPause).toBe(500);
    const written = (await itemsOf(id)).length;
    expect(TEST_ENGINE === 'sqlite' ? [500] : [500, 1000]).toContain(written);
    expect(await campaignRow(id)).toMatchObject({ status: 'paused', generatedPosts: written, generationDueAt: null });

    // Launched again, it goes on from the next slot, never writing a slot twice.
    await launch(id);
    expect(await drain(runtime, campaignGenerationJob(runtime, batchWriter([fakeGenerator()])))).toEqual(['completed']);
    const slots = (await itemsOf(id)).map((item) => item.campaignSlot);
    expect(slots).toEqual(Array.from({ length: 1500 }, (_, i) => i));
  });

  it('completed or archived by PATCH stops generation too, and PATCH to active starts none', async () => {
    for (const status of ['completed', 'archived'] as const) {
      const { id } = await create({ posts_per_day: 50, campaign_length_days: 20 });
      await launch(id);
      await drain(
        runtime,
        campaignGenerationJob(
          runtime,
          batchWriter([
            fakeGenerator(
              async (request) =>
                request.slots[0]!.index === 0 && (await runOperation(updateCampaign, ctx(), { id, status })),
            ),
          ]),
        ),
      );
      expect(await itemsOf(id)).toHaveLength(0);
      expect((await campaignRow(id))!.generationDueAt).toBeNull();
    }
    const { id } = await create({});
    await runOperation(updateCampaign, ctx(), { id, status: 'active' });
    expect(await drain(runtime, campaignGenerationJob(runtime, batchWriter([fakeGenerator()])))).toEqual([]);
    expect(await itemsOf(id)).toHaveLength(0);
  });

  it('a delete during generation stops it; the items already written stay, with campaign_id cleared', async () => {
    const { id } = await create({ posts_per_day: 50, campaign_length_days: 30 });
    await launch(id);
    let writtenAtDelete: number | undefined;
    const generator = fakeGenerator(async (request) => {
      if (request.slots[0]!.index !== 1000) return;
      writtenAtDelete = (await itemsOf(id)).length;
      await runOperation(deleteCampaign, ctx(), { id });
    });
    expect(await drain(runtime, campaignGenerationJob(runtime, batchWriter([generator])))).toEqual(['lease_lost']);
    expect(writtenAtDelete).toBe(500);
    expect(await itemsOf(id)).toHaveLength(0);
    const orphans = await runtime.db.select().from(content).where(eq(content.workspaceId, ws.workspace.id)).all();
    // The batch waiting to commit (slots 500-999) as with a pause (above): on PostgreSQL it may commit
    // first, and its items are then cleared with the others.
    expect(TEST_ENGINE === 'sqlite' ? [500] : [500, 1000]).toContain(orphans.length);
    for (const item of orphans)
      expect(item).toMatchObject({ campaignId: null, campaignSlot: null, status: 'pending_review' });
  });

  it('a run that died is taken over once its lease runs out, and no slot is written twice', async () => {
    const { id } = await create({ posts_per_day: 50, campaign_length_days: 20 });
    await launch(id);
    // A first run claims the campaign, writes one batch, then its process dies.
    let calls = 0;
    const dying: CaptionGenerator = {
      name: 'dying',
      async generate(request) {
        if (++calls === 2) throw new Error('process killed');
        return fakeGenerator().generate(request);
      },
    };
    const [claim] = await claimDueGenerations(runtime, 1);
    const { generateCampaign } = await import('../../../src/core/campaigns/generation.ts');
    await expect(generateCampaign(runtime, claim!, batchWriter([dying]))).rejects.toThrow('process killed');
    expect(await itemsOf(id)).toHaveLength(500);
    // Held under its lease: nobody else takes it yet.
    expect(await drain(runtime, campaignGenerationJob(runtime, batchWriter([fakeGenerator()])))).toEqual([]);
    runtime.clock.advance(generationLeaseMs(runtime));
    expect(await drain(runtime, campaignGenerationJob(runtime, batchWriter([fakeGenerator()])))).toEqual(['completed']);
    expect((await itemsOf(id)).map((item) => item.campaignSlot)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect((await campaignRow(id))!.generatedPosts).toBe(1000);
  });

  it("each batch is written from the templates library: structures of its content types, the brand's industry first", async () => {
    await runOperation(updateBrandProfile, ctx(), { industry: 'SaaS' });
    const { id } = await create({ posts_per_day: 2, campaign_length_days: 2, content_mix: { carousel: 1 } });
    await launch(id);
    const generator = fakeGenerator();
    await drain(runtime, campaignGenerationJob(runtime, batchWriter([generator])));
    const [request] = generator.calls;
    const library = await runtime.db.select().from(templates).all();
    const carousels = library
      .filter((t) => t.contentType === 'carousel')
      .map((t) => `${t.structure.hook} / ${t.structure.body} / ${t.structure.call_to_action}`);
    expect(request!.templates.length).toBeGreaterThan(0);
    for (const structure of request!.templates) expect(carousels).toContain(structure);
    const saas = library.filter((t) => t.contentType === 'carousel' && t.niches.includes('saas'));
    expect(saas.length).toBeGreaterThan(0);
    const first = library.find(
      (t) => `${t.structure.hook} / ${t.structure.body} / ${t.structure.call_to_action}` === request!.templates[0],
    );
    expect(first!.niches).toContain('saas');
  });

  it('a generator that fails or writes an invalid draft is passed over for the next one', async () => {
    const { id } = await create({ posts_per_day: 5, campaign_length_days: 2 });
    await launch(id);
    const broken: CaptionGenerator = {
      name: 'broken',
      generate: async () => Promise.reject(new Error('upstream 503')),
    };
    const sloppy: CaptionGenerator = {
      name: 'sloppy',
      generate: async (request) => request.slots.map(() => ({ caption: '', hashtags: [], topic: null })),
    };
    const passedOver: GeneratorFailure[] = [];
    expect(
      await drain(
        runtime,
        campaignGenerationJob(
          runtime,
          batchWriter([broken, sloppy, fakeGenerator()], (failure) => passedOver.push(failure)),
        ),
      ),
    ).toEqual(['completed']);
    expect((await itemsOf(id)).map((item) => item.caption)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Spring post ${i}`),
    );
    expect(passedOver).toEqual([
      { generator: 'broken', campaignId: id, error: 'upstream 503' },
      { generator: 'sloppy', campaignId: id, error: 'sloppy generator: the caption is empty' },
    ]);
  });

  it("only the workspace's own active accounts are targeted, and nothing leaks across workspaces", async () => {
    const other = await makeWorkspace(runtime, { plan: 'business' });
    await connectAccounts(runtime, other.workspace, ['instagram']);
    await connectAccounts(runtime, ws.workspace, ['facebook']);
    const { id } = await create({ posts_per_day: 1, campaign_length_days: 3 });
    await launch(id);
    await drain(runtime, campaignGenerationJob(runtime, batchWriter([fakeGenerator()])));
    for (const item of await itemsOf(id))
      expect(item).toMatchObject({ workspaceId: ws.workspace.id, targetPlatforms: ['facebook'] });
    expect(
      await runtime.db
        .select()
        .from(content)
        .where(and(eq(content.workspaceId, other.workspace.id), isNotNull(content.campaignId)))
        .all(),
    ).toEqual([]);
  });
});

describe('the draft check', () => {
  const brand = { forbidden_words: ['cheap', 'free shipping'], topics_to_avoid: ['politics'] };
  const check = (caption: string, hashtags: string[] = []) => draftProblems({ caption, hashtags, topic: null }, brand);

  it('measures the text as X does: a URL counts 23, heavy and expanding characters count 2', () => {
    expect(check('x'.repeat(280))).toEqual([]);
    expect(check('x'.repeat(281))).toEqual(['twitter: text is 281 weighted characters; the limit is 280']);
    // 274 characters, but the URL counts 23 instead of its 4.
    expect(check(`${'x'.repeat(270)} a.co`)).toEqual(['twitter: text is 294 weighted characters; the limit is 280']);
    // U+0958 expands under NFC and weighs 2; ™ weighs 2.
    expect(check('\u0958'.repeat(141))).toHaveLength(1);
    expect(check('™'.repeat(140))).toEqual([]);
    expect(check('™'.repeat(141))).toHaveLength(1);
    // The hashtags are part of the posted text.
    expect(check('x'.repeat(270), ['abcdefgh'])).toHaveLength(1);
  });

  it('finds a forbidden word or avoided topic in any case, as a phrase or joined into a hashtag', () => {
    expect(check('So Cheap!')).toEqual(['uses the forbidden word "cheap"']);
    expect(check('Cheapest deals')).toEqual([]);
    expect(check('Now with FREE   shipping')).toEqual(['uses the forbidden word "free shipping"']);
    expect(check('Shop now', ['FreeShipping'])).toEqual(['uses the forbidden word "free shipping"']);
    expect(check('Talking politics today')).toEqual(['touches the avoided topic "politics"']);
  });
});
