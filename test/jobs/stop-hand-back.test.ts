import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { campaigns, content, webhookDeliveries, webhookJobs, webhooks } from '../../db/schema/index.ts';
import { claimDueGenerations, batchWriter, generateCampaign } from '../../src/core/campaigns/generation.ts';
import type { CaptionGenerator } from '../../src/core/campaigns/generator.ts';
import type { Outcome } from '../../src/core/outcomes.ts';
import { claimDueDeliveries } from '../../src/core/webhooks/delivery/claim.ts';
import { deliver } from '../../src/core/webhooks/delivery/deliver.ts';
import { enqueueAllEvents } from '../../src/core/webhooks/delivery/enqueue.ts';
import { releaseHeldDeliveries } from '../../src/core/webhooks/delivery/lease.ts';
import { makeCampaign, makeContent, makeWebhook, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { connectAccounts } from '../helpers/publishing.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/** Graceful shutdown (issue 7): what a stopping worker does with the items it holds. */
describe('work handed back when a worker stops', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let receiver: Receiver;
  let outcomes: Outcome[];
  beforeEach(async () => {
    runtime = await testRuntime({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    ws = await makeWorkspace(runtime);
    receiver = await startReceiver();
    outcomes = [];
    runtime.outcomes.listen((outcome) => outcomes.push(outcome));
  });
  afterEach(() => receiver.close());

  it('a webhook attempt in flight is cut short and its job handed back unrecorded, due again at once', async () => {
    receiver.respondWith('hang');
    await makeWebhook(runtime, ws.workspace, { url: `${receiver.url}/hook`, events: ['content.created'] });
    await makeContent(runtime, ws.workspace);
    await enqueueAllEvents(runtime);
    const [claim] = await claimDueDeliveries(runtime, 1);
    const stopping = new AbortController();
    const delivering = deliver(runtime, claim!, stopping.signal);
    await receiver.waitForRequests(1);
    stopping.abort();

    expect(await delivering).toBe('handed_back');
    // What the stopped worker does last (webhook-delivery.ts): the subscription's lease is given back.
    await releaseHeldDeliveries(runtime);
    expect(await runtime.db.select().from(webhookJobs).get()).toMatchObject({
      id: claim!.jobId,
      state: 'queued',
      attempts: 0,
    });
    expect(await runtime.db.select().from(webhooks).get()).toMatchObject({ leaseToken: null, leaseExpiresAt: null });
    expect(await runtime.db.select().from(webhookDeliveries).all()).toEqual([]);
    expect(outcomes).toEqual([]);
    const [again] = await claimDueDeliveries(runtime, 1);
    expect(again).toMatchObject({ jobId: claim!.jobId, attempt: 1 });
  });

  it('campaign generation finishes the batch in hand, then hands the campaign back due at once', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    const { id } = await makeCampaign(
      runtime,
      ws.workspace,
      { name: 'Spring', posts_per_day: 50, campaign_length_days: 30 },
      { launch: true },
    );
    const [claim] = await claimDueGenerations(runtime, 1);
    const stopping = new AbortController();
    const generator: CaptionGenerator = {
      name: 'stops the worker while writing',
      async generate(request) {
        stopping.abort();
        return request.slots.map((slot) => ({ caption: `post ${slot.index}`, hashtags: [], topic: 'spring' }));
      },
    };

    expect(await generateCampaign(runtime, claim!, batchWriter([generator]), stopping.signal)).toBe('handed_back');
    const written = await runtime.db.select().from(content).where(eq(content.campaignId, id)).all();
    const row = (await runtime.db.select().from(campaigns).where(eq(campaigns.id, id)).get())!;
    // One batch, committed; the rest is left for the next run, which may start at once.
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(1500);
    expect(row).toMatchObject({ generatedPosts: written.length, generationLeaseToken: null, status: 'active' });
    expect(row.generationDueAt!.getTime()).toBe(runtime.clock.now().getTime());
    expect(await claimDueGenerations(runtime, 1)).toHaveLength(1);
  });
});
