/**
 * The draft thread (src/jobs/draft-thread.ts): the generators and the check of their drafts on a
 * worker thread, as the server runs them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { content } from '../../db/schema/index.ts';
import { batchWriter, type BatchPlan, type WrittenSlot } from '../../src/core/campaigns/generation.ts';
import { draftProblems, type BrandBrief, type GenerationRequest } from '../../src/core/campaigns/generator.ts';
import { builtinGenerator } from '../../src/core/campaigns/generators/builtin/index.ts';
import { generatorsFor } from '../../src/core/campaigns/generators/index.ts';
import type { AiConfig } from '../../src/core/campaigns/generators/openai.ts';
import { loadConfig } from '../../src/core/config.ts';
import { toContentResource } from '../../src/core/content/serialize.ts';
import type { Logger } from '../../src/core/log.ts';
import { startDraftThread, type DraftThread } from '../../src/jobs/draft-thread.ts';
import { makeCampaign, makeWorkspace } from '../helpers/factories.ts';
import { eventsOf } from '../helpers/rest-expect.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { drain } from '../../src/jobs/drain.ts';
import { campaignGenerationJob } from '../../src/jobs/campaign-generation.ts';

const brand: BrandBrief = {
  brand_name: 'Trailhead',
  industry: 'Outdoor gear',
  company_description: 'Everyday gear for people who walk to work.',
  website_url: 'https://trailhead.example',
  voice: 'Plain-spoken and warm',
  audience: 'Commuters',
  target_audience: null,
  style_notes: null,
  example_posts: [],
  topics_to_lean_into: ['rain jackets', 'city walking'],
  topics_to_avoid: ['politics'],
  vocabulary: ['kit'],
  forbidden_words: ['cheap', 'best'],
  hashtag_strategy: 'Two niche tags',
  tone_formality: 4,
  tone_humor: 6,
  tone_energy: 7,
};

const request: GenerationRequest = {
  campaign: { id: 'cmp_thread', name: 'Autumn walks', description: 'Rain gear for the walk to work', totalPosts: 300 },
  brand,
  templates: ['Hook / three tips / call to action'],
  slots: Array.from({ length: 300 }, (_, index) => ({
    index,
    contentType: (['reel', 'carousel', 'single_image'] as const)[index % 3]!,
    scheduledFor: new Date(Date.UTC(2030, 9, 1) + index * 3_600_000),
  })),
};

const plan: BatchPlan = {
  workspaceId: 'org_thread',
  campaignId: 'cmp_thread',
  targetPlatforms: ['instagram', 'linkedin'],
  at: new Date('2030-09-30T08:00:00Z'),
  request,
};

const noEndpoint: AiConfig = loadConfig({}).ai;

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

function thread(ai: AiConfig = noEndpoint, idleMs?: number): DraftThread {
  const started = startDraftThread(ai, { idleMs });
  opened.push(started);
  return started;
}

describe('the draft thread', () => {
  it("writes the very drafts the built-in generator writes on the main thread, every one passing the check, with its item's event", async () => {
    const written = await thread().write(plan);
    const onMainThread = await batchWriter([builtinGenerator]).write(plan);
    expect(written.map((slot) => slot.draft)).toEqual(onMainThread.map((slot) => slot.draft));
    expect(written).toHaveLength(300);
    for (const [i, { draft, itemId, eventId, eventData }] of written.entries()) {
      expect(draftProblems(draft, brand)).toEqual([]);
      expect(eventId).toMatch(/^evt_/);
      expect(JSON.parse(eventData)).toEqual({
        content: {
          id: itemId,
          object: 'content',
          caption: draft.caption,
          hashtags: draft.hashtags,
          content_type: request.slots[i]!.contentType,
          target_platforms: ['instagram', 'linkedin'],
          media_urls: [],
          media_alt_text: {},
          topic: draft.topic,
          platform_specific: {},
          aspect_ratio: null,
          scheduled_for: request.slots[i]!.scheduledFor.toISOString(),
          published_at: null,
          status: 'pending_review',
          campaign_id: 'cmp_thread',
          publish_queued: false,
          publish_results: [],
          created_by: null,
          review_note: null,
          created_at: '2030-09-30T08:00:00.000Z',
          updated_at: '2030-09-30T08:00:00.000Z',
        },
      });
    }
    expect(new Set(written.map((slot) => slot.itemId)).size).toBe(300);
  });

  it('tries the configured endpoint first and falls back to the built-in generator when its output is malformed', async () => {
    let calls = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            choices: [
              { index: 0, message: { role: 'assistant', content: 'not the JSON asked for' }, finish_reason: 'stop' },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    opened.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const { port } = server.address() as AddressInfo;
    const ai: AiConfig = {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'sk-test',
      model: 'test-model',
      timeoutMs: 2_000,
      maxRetries: 0,
    };

    const logged: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const log = {
      warn: (fields: Record<string, unknown>, message: string) => logged.push({ fields, message }),
    } as unknown as Logger;
    const onThread = startDraftThread(ai, { log });
    opened.push(onThread);
    // Batches are cut to what a model writes well in one call.
    expect(onThread.batchSize).toBe(batchWriter(generatorsFor(ai)).batchSize);
    expect(onThread.batchSize).toBeLessThan(batchWriter([builtinGenerator]).batchSize);
    const small = { ...plan, request: { ...request, slots: request.slots.slice(0, onThread.batchSize) } };
    const drafts = (written: WrittenSlot[]) => written.map((slot) => slot.draft);
    expect(drafts(await onThread.write(small))).toEqual(drafts(await batchWriter([builtinGenerator]).write(small)));
    expect(calls).toBe(1);
    // The thread tells the main thread's log why the endpoint was passed over.
    expect(logged).toEqual([
      {
        fields: { generator: 'openai', campaign_id: 'cmp_thread', err: expect.stringContaining('not JSON') },
        message: 'campaign generation: the openai generator failed a batch and was passed over',
      },
    ]);
  });

  it('generates a whole campaign through the engine: every slot once, in order', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime, { plan: 'business' });
    const { id } = await makeCampaign(
      runtime,
      workspace,
      { name: 'Through the thread', posts_per_day: 50, campaign_length_days: 30 },
      { launch: true },
    );

    expect(await drain(runtime, campaignGenerationJob(runtime, thread()))).toEqual(['completed']);

    const items = await runtime.db
      .select()
      .from(content)
      .where(eq(content.campaignId, id))
      .orderBy(content.campaignSlot)
      .all();
    expect(items.map((item) => item.campaignSlot)).toEqual(Array.from({ length: 1500 }, (_, i) => i));
    expect(new Set(items.map((item) => item.caption)).size).toBeGreaterThan(1400);
    // Each item's content.created event, serialised on the thread, is the item as stored.
    const created = (await eventsOf(runtime, workspace.id)).filter((event) => event.type === 'content.created');
    expect(created.map((event) => event.data)).toEqual(items.map((item) => ({ content: toContentResource(item) })));
    expect(created.map((event) => event.createdAt)).toEqual(items.map((item) => item.createdAt));
  });

  it('starts with the first write, stops once idle, and starts again for the next write', async () => {
    const idle = thread(noEndpoint, 100);
    const small = { ...plan, request: { ...request, slots: request.slots.slice(0, 5) } };
    const first = await idle.write(small);
    const started = idle.ready;
    await new Promise((resolve) => setTimeout(resolve, 400));
    // A new thread, writing the same drafts.
    const again = await idle.write(small);
    expect(idle.ready).not.toBe(started);
    expect(again.map((slot) => slot.draft)).toEqual(first.map((slot) => slot.draft));
  });

  it('once closed, fails the writes in hand and every write after', async () => {
    const closing = thread();
    await closing.ready;
    const inHand = expect(closing.write(plan)).rejects.toThrow('the draft thread was closed');
    await closing.close();
    await inHand;
    await expect(closing.write(plan)).rejects.toThrow('the draft thread was closed');
  });
});
