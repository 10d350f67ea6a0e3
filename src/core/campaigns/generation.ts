import { and, eq, sql } from 'drizzle-orm';
import { insertRows, preparedStatements, savepoint, SerializedJson } from '../../../db/client.ts';
import { campaigns, content, socialAccounts } from '../../../db/schema/index.ts';
import { aiCreditsUsedIn, spendAiCredits, usagePeriod } from '../accounts/usage.ts';
import { findWorkspace } from '../accounts/workspaces.ts';
import { inNextCommit } from '../batch.ts';
import { brandProfileOf } from '../brand-profile/operations.ts';
import { storedContentRow, type NewContentRow } from '../content/operations.ts';
import { toContentResource, type ContentRow } from '../content/serialize.ts';
import type { Runtime } from '../context.ts';
import { recordEvents, type NewEvent } from '../events/record-event.ts';
import { completeCampaignIfDone } from './completion.ts';
import { templateStructures } from '../templates/operations.ts';
import { newId, prefixedId } from '../ids.ts';
import { contentTypesOf, slotTime } from './calendar.ts';
import {
  draftProblems,
  type CaptionGenerator,
  type Draft,
  type GenerationRequest,
  type GenerationSlot,
} from './generator.ts';
import type { CampaignRow } from './serialize.ts';
import {
  generationLeaseMs,
  handBackGeneration,
  UNDER_GENERATION_LEASE,
  type GenerationClaim,
} from './generation-lease.ts';

export {
  abandonGeneration,
  claimDueGenerations,
  generationLeaseMs,
  nextGenerationDueAfter,
  renewGenerationLeases,
  scheduleGeneration,
  type GenerationClaim,
} from './generation-lease.ts';

/** Slots written per commit: large enough to share a commit, small enough to stop soon after a pause. */
const DEFAULT_BATCH = 500;

/** A batch of slots to write, with everything its items are made of besides the drafts. */
export interface BatchPlan {
  workspaceId: string;
  campaignId: string;
  /** The workspace's active platforms when the batch was planned: generated items target those. */
  targetPlatforms: string[];
  /** When the batch was planned: its items' `created_at`. */
  at: Date;
  request: GenerationRequest;
}

/**
 * A slot's post as the writer hands it over: its draft, and the id of its item and the id and
 * serialised data of the item's `content.created` event, so the commit only inserts.
 */
export interface WrittenSlot {
  draft: Draft;
  itemId: string;
  eventId: string;
  eventData: string;
}

/** A planned batch, being written. */
interface Batch {
  plan: BatchPlan;
  written: Promise<WrittenSlot[]>;
}

export type GenerationOutcome = 'completed' | 'out_of_credits' | 'stopped' | 'lease_lost' | 'handed_back';

/**
 * Writes a batch: one valid draft per slot, and what the commit inserts for it, or fails. The
 * server's writer runs on a worker thread (src/jobs/draft-thread.ts), so that the next batch is
 * written while this one commits; it reads nothing but the plan.
 */
export interface BatchWriter {
  /** The most slots a batch is given. */
  batchSize: number;
  write(plan: BatchPlan): Promise<WrittenSlot[]>;
}

/** A generator that failed a batch, passed over for the next one (see writeDrafts). */
export interface GeneratorFailure {
  generator: string;
  campaignId: string;
  error: string;
}

/**
 * A writer that runs `generators` on this thread, trying them in order (see writeDrafts), telling
 * `passedOver` of each one that fails a batch.
 */
export function batchWriter(
  generators: CaptionGenerator[],
  passedOver: (failure: GeneratorFailure) => void = () => {},
): BatchWriter {
  return {
    batchSize: Math.min(DEFAULT_BATCH, ...generators.map((generator) => generator.maxSlotsPerCall ?? DEFAULT_BATCH)),
    async write(plan) {
      const drafts = await writeDrafts(plan.request, generators, passedOver);
      return drafts.map((draft, i) => {
        const item = storedContentRow(campaignItem(plan, i, draft, newId()));
        return {
          draft,
          itemId: item.id,
          eventId: prefixedId('evt'),
          eventData: JSON.stringify({ content: toContentResource(item) }),
        };
      });
    },
  };
}

/** The item the draft of the plan's `i`-th slot becomes. */
function campaignItem(plan: BatchPlan, i: number, draft: Draft, id: string): NewContentRow {
  const slot = plan.request.slots[i]!;
  return {
    id,
    workspaceId: plan.workspaceId,
    caption: draft.caption,
    hashtags: draft.hashtags,
    contentType: slot.contentType,
    targetPlatforms: plan.targetPlatforms,
    mediaUrls: [],
    topic: draft.topic,
    platformSpecific: {},
    aspectRatio: null,
    scheduledFor: slot.scheduledFor,
    status: 'pending_review',
    publishQueued: false,
    publishResults: [],
    campaignId: plan.campaignId,
    campaignSlot: slot.index,
    createdAt: plan.at,
    updatedAt: plan.at,
  };
}

/**
 * Batches written ahead of the one committing. One keeps the draft thread busy while the main
 * thread commits; two waited less for drafts but took as long (the two cores were already busy).
 */
const BATCHES_AHEAD = 1;

/**
 * Generates a claimed campaign's remaining slots, batch after batch, until every slot is filled,
 * the workspace's AI credits run out, or the campaign is stopped (paused, completed, archived,
 * deleted). Each batch is written in one commit that first checks the lease and the status, so a
 * slot is never generated twice and nothing is written after a stop; a run that dies mid-batch
 * loses only the batch in hand, which the next run writes again. While a batch commits, the drafts
 * of the next BATCHES_AHEAD are already being written; they are dropped if the commit ends the run
 * or writes fewer slots than planned (credits spent meanwhile). When `stopping` is aborted (the
 * process is shutting down), the batch in hand is finished and the campaign handed back, due at once.
 */
export async function generateCampaign(
  runtime: Runtime,
  claim: GenerationClaim,
  writer: BatchWriter,
  stopping?: AbortSignal,
): Promise<GenerationOutcome> {
  const { db } = runtime;
  /** Planned batches in slot order, their drafts being written; the first commits next. */
  const planned: Batch[] = [];
  for (;;) {
    if (stopping?.aborted) return handBackGeneration(runtime, claim);
    if (planned.length === 0) {
      const plan = await inNextCommit(db, () => savepoint(db, () => planBatch(runtime, claim, writer.batchSize)));
      if (typeof plan === 'string') return plan;
      planned.push({ plan, written: writer.write(plan) });
    }
    while (planned.length <= BATCHES_AHEAD) {
      const next = await lookAhead(runtime, claim, writer, planned);
      if (!next) break;
      planned.push(next);
    }
    const batch = planned.shift()!;
    const slots = await batch.written;
    const outcome = await inNextCommit(db, () => savepoint(db, () => commitBatch(runtime, claim, batch.plan, slots)));
    if (outcome === 'written') continue;
    planned.length = 0;
    if (outcome !== 'stale') return outcome;
  }
}

/**
 * The batch after the last of `planned`, its drafts already being written, assuming those before
 * it commit whole; null when there is none to write (the next plan from the database then ends the
 * run). Reads only: the commit of that batch checks everything again.
 */
async function lookAhead(
  runtime: Runtime,
  claim: GenerationClaim,
  writer: BatchWriter,
  planned: Batch[],
): Promise<Batch | null> {
  const row = await campaignUnderLease(runtime, claim);
  if (!row || row.generationLeaseToken !== claim.leaseToken || row.status !== 'active') return null;
  const slots = planned.map((batch) => batch.plan.request.slots);
  // The first planned batch was itself planned ahead and will not commit (see commitBatch).
  if (slots[0]![0]!.index !== row.generatedPosts) return null;
  const from = slots.at(-1)!.at(-1)!.index + 1;
  const promised = slots.reduce((n, batch) => n + batch.length, 0);
  const credits = await creditsLeft(runtime, row.workspaceId);
  const count = Math.min(writer.batchSize, row.totalPosts - from, credits - promised);
  if (count <= 0) return null;
  const plan = await batchPlan(runtime, row, from, count);
  const written = writer.write(plan);
  // Dropped unread if the run ends first; a failure counts only once the batch is taken up.
  written.catch(() => {});
  return { plan, written };
}

/** Why generation ends for `row`, or null while it goes on. Ends the run in the database when it does. */
async function endOf(
  runtime: Runtime,
  claim: GenerationClaim,
  row: CampaignRow | undefined,
): Promise<GenerationOutcome | null> {
  if (!row || row.generationLeaseToken !== claim.leaseToken) return 'lease_lost';
  const finished = async (outcome: GenerationOutcome) => {
    const { changes } = await statements(runtime.db).endGeneration.run({ id: row.id, leaseToken: claim.leaseToken });
    return changes === 1 ? outcome : 'lease_lost';
  };
  if (row.status !== 'active') return finished('stopped');
  if (row.generatedPosts >= row.totalPosts) {
    await completeCampaignIfDone(runtime.db, row.id, runtime.clock.now());
    return finished('completed');
  }
  if ((await creditsLeft(runtime, row.workspaceId)) <= 0) return finished('out_of_credits');
  return null;
}

/** The workspace's AI credits left this month (a campaign's row is gone with its workspace). */
async function creditsLeft(runtime: Runtime, workspaceId: string): Promise<number> {
  const { db, clock } = runtime;
  const workspace = await findWorkspace(db, workspaceId);
  if (!workspace) return 0;
  return workspace.features.monthly_ai_credits - (await aiCreditsUsedIn(db, workspaceId, usagePeriod(clock.now())));
}

const campaignUnderLease = async (runtime: Runtime, claim: GenerationClaim): Promise<CampaignRow | undefined> =>
  statements(runtime.db).campaign.get({ id: claim.campaignId });

/** Prepared: each runs once or twice a batch, and building a drizzle query costs more than running it. */
const statements = preparedStatements((db) => ({
  endGeneration: db
    .update(campaigns)
    .set({ generationDueAt: null, generationLeaseToken: null })
    .where(UNDER_GENERATION_LEASE)
    .prepare(),
  campaign: db
    .select()
    .from(campaigns)
    .where(eq(campaigns.id, sql.placeholder('id')))
    .prepare(),
  // Generated items target the workspace's active platforms.
  activePlatforms: db
    .selectDistinct({ platform: socialAccounts.platform })
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, sql.placeholder('workspaceId')), eq(socialAccounts.isActive, true)))
    .orderBy(socialAccounts.platform)
    .prepare(),
  batchWritten: db
    .update(campaigns)
    .set({
      generatedPosts: sql`${sql.placeholder('generatedPosts')}`,
      generationDueAt: sql`${sql.placeholder('dueAt')}`,
      updatedAt: sql`${sql.placeholder('now')}`,
    })
    .where(UNDER_GENERATION_LEASE)
    .prepare(),
}));

async function planBatch(
  runtime: Runtime,
  claim: GenerationClaim,
  batchSize: number,
): Promise<BatchPlan | GenerationOutcome> {
  const row = await campaignUnderLease(runtime, claim);
  const end = await endOf(runtime, claim, row);
  if (end !== null) return end;
  const campaign = row!;
  const count = Math.min(
    batchSize,
    campaign.totalPosts - campaign.generatedPosts,
    await creditsLeft(runtime, campaign.workspaceId),
  );
  return batchPlan(runtime, campaign, campaign.generatedPosts, count);
}

/** Slots `from` to `from + count - 1` of `campaign`, with what their drafts are written from. */
async function batchPlan(runtime: Runtime, campaign: CampaignRow, from: number, count: number): Promise<BatchPlan> {
  const { db } = runtime;
  const contentTypes = contentTypesOf(campaign);
  const slots: GenerationSlot[] = [];
  for (let index = from; index < from + count; index++) {
    slots.push({
      index,
      contentType: contentTypes[index]!,
      scheduledFor: slotTime(campaign.startDate, campaign.postsPerDay, index),
    });
  }
  const targetPlatforms = (await statements(db).activePlatforms.all({ workspaceId: campaign.workspaceId })).map(
    (r) => r.platform,
  );
  // Read before every batch, so an edit to the profile shows in the next batch.
  const brand = await brandProfileOf(db, campaign.workspaceId);
  return {
    workspaceId: campaign.workspaceId,
    campaignId: campaign.id,
    targetPlatforms,
    at: runtime.clock.now(),
    request: {
      campaign: {
        id: campaign.id,
        name: campaign.name,
        description: campaign.description,
        totalPosts: campaign.totalPosts,
      },
      brand,
      templates: await templateStructures(db, [...new Set(slots.map((slot) => slot.contentType))], brand.industry),
      slots,
    },
  };
}

/**
 * The drafts for a batch from the first generator that writes them all valid; the built-in one
 * comes last and always does. A generator that fails or writes an invalid draft is passed over for
 * this batch only.
 */
async function writeDrafts(
  request: GenerationRequest,
  generators: CaptionGenerator[],
  passedOver: (failure: GeneratorFailure) => void,
): Promise<Draft[]> {
  let lastError: unknown;
  for (const generator of generators) {
    try {
      const drafts = await generator.generate(request);
      const invalid =
        drafts.length !== request.slots.length
          ? 'wrong number of drafts'
          : drafts
              .map((d) => draftProblems(d, request.brand))
              .find((p) => p.length > 0)
              ?.join('; ');
      if (!invalid) return drafts;
      lastError = new Error(`${generator.name} generator: ${invalid}`);
    } catch (error) {
      lastError = error;
    }
    passedOver({
      generator: generator.name,
      campaignId: request.campaign.id,
      error: lastError instanceof Error ? lastError.message : String(lastError),
    });
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/** Writes a batch's items; 'stale' when the plan no longer starts at the campaign's next slot. */
async function commitBatch(
  runtime: Runtime,
  claim: GenerationClaim,
  plan: BatchPlan,
  written: WrittenSlot[],
): Promise<GenerationOutcome | 'written' | 'stale'> {
  const { db, clock } = runtime;
  const row = await campaignUnderLease(runtime, claim);
  // Checked again at commit time: a pause, a delete or another run while the drafts were written.
  const end = await endOf(runtime, claim, row);
  if (end !== null) return end;
  const campaign = row!;
  // Only our lease moves generated_posts, but a batch planned ahead assumed the one before it was
  // written whole; and the unique (campaign, slot) index would fail the whole commit otherwise.
  if (plan.request.slots[0]?.index !== campaign.generatedPosts) return 'stale';
  // Another campaign of the workspace may have spent credits while these drafts were written; and one
  // committing right now (another unit, on PostgreSQL) must not count the same credits left: the
  // workspace's credits are counted and spent by one unit at a time. The others wait their turn (a
  // commit of a few ms) rather than plan again, which would write their drafts a second time; this
  // unit holds no lock yet (everything above only read).
  await db.$store.lock(`credits:${campaign.workspaceId}`);
  const slots = plan.request.slots.slice(0, await creditsLeft(runtime, campaign.workspaceId));
  const now = clock.now();
  const count = slots.length;
  // First, under the lease: a run that lost it (a takeover committed since the read above) writes nothing.
  const { changes } = await statements(db).batchWritten.run({
    id: campaign.id,
    leaseToken: claim.leaseToken,
    generatedPosts: campaign.generatedPosts + count,
    dueAt: now.getTime() + generationLeaseMs(runtime),
    now: now.getTime(),
  });
  if (changes !== 1) return 'lease_lost';
  // The items, then their events, each as one batch of statements (one await, not two per item).
  const items: ContentRow[] = [];
  const created: (NewEvent & { id: string })[] = [];
  for (let i = 0; i < slots.length; i++) {
    const { draft, itemId, eventId, eventData } = written[i]!;
    items.push(storedContentRow(campaignItem(plan, i, draft, itemId)));
    created.push({
      id: eventId,
      workspaceId: plan.workspaceId,
      type: 'content.created',
      data: new SerializedJson(eventData),
      at: plan.at,
    });
  }
  await insertRows(db, content, items);
  await recordEvents(db, created);
  await spendAiCredits(db, campaign.workspaceId, usagePeriod(now), count);
  return 'written';
}
