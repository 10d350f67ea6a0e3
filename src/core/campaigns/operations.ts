import { and, desc, eq } from 'drizzle-orm';
import { writeTransaction, type Db } from '../../../db/client.ts';
import { campaigns, content } from '../../../db/schema/index.ts';
import { notFound, ServiceError } from '../errors.ts';
import { recordEvent } from '../events/record-event.ts';
import { newId } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { enforce, subjectOf } from '../policy.ts';
import { afterCursor, deletedResource, listEnvelope, toPage } from '../pagination.ts';
import { scheduleGeneration } from './generation.ts';
import { campaignFacts, judgeCampaignAction, LAUNCH_ACCESS } from './policy.ts';
import {
  CampaignIdInput,
  CampaignResource as CampaignResourceSchema,
  CreateCampaignInput,
  ListCampaignsInput,
  UpdateCampaignInput,
} from './schemas.ts';
import { toCampaignResource, type CampaignResource, type CampaignRow } from './serialize.ts';

/** Fetch-or-throw, always scoped to the workspace: another workspace's campaign is simply not found. */
export async function getCampaignInWorkspace(db: Db, workspaceId: string, id: string): Promise<CampaignRow> {
  const row = await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.id, id)))
    .get();
  if (!row) throw notFound('campaign');
  return row;
}

/** A campaign created without `start_date` starts at the next UTC midnight. */
function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

export const listCampaigns = defineOperation({
  name: 'listCampaigns',
  buckets: ['read'],
  scope: 'read',
  input: ListCampaignsInput,
  output: listEnvelope(CampaignResourceSchema),
  async run({ db, workspace, answerBudget }, input) {
    const rows = await db
      .select()
      .from(campaigns)
      .where(
        and(eq(campaigns.workspaceId, workspace.id), ...afterCursor(input.cursor, campaigns.createdAt, campaigns.id)),
      )
      .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
      .limit(input.limit + 1)
      .all();
    return toPage(rows, input.limit, (r) => ({ createdAt: r.createdAt, id: r.id }), toCampaignResource, answerBudget);
  },
});

export const getCampaign = defineOperation({
  name: 'getCampaign',
  buckets: ['read'],
  scope: 'read',
  input: CampaignIdInput,
  output: CampaignResourceSchema,
  async run({ db, workspace }, input) {
    return toCampaignResource(await getCampaignInWorkspace(db, workspace.id, input.id));
  },
});

/** POST /campaigns: a draft; `total_posts` is fixed here as posts_per_day x campaign_length_days. */
export const createCampaign = defineOperation({
  name: 'createCampaign',
  buckets: ['write'],
  scope: 'write',
  input: CreateCampaignInput,
  output: CampaignResourceSchema,
  async run(ctx, input): Promise<CampaignResource> {
    const now = ctx.clock.now();
    const row = await ctx.db
      .insert(campaigns)
      .values({
        id: newId(),
        workspaceId: ctx.workspace.id,
        name: input.name,
        description: input.description ?? null,
        status: 'draft',
        contentMix: input.content_mix,
        postsPerDay: input.posts_per_day,
        campaignLengthDays: input.campaign_length_days,
        startDate: input.start_date ?? nextUtcMidnight(now),
        totalPosts: input.posts_per_day * input.campaign_length_days,
        generatedPosts: 0,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    return toCampaignResource(row);
  },
});

/**
 * PATCH /campaigns/{id}. A status is set as given, without the launch check (a PATCH is not a launch), and starts
 * no generation. `total_posts` stays what it was when the campaign was created.
 */
export const updateCampaign = defineOperation({
  name: 'updateCampaign',
  buckets: ['write'],
  scope: 'write',
  input: UpdateCampaignInput,
  output: CampaignResourceSchema,
  errors: {
    no_updates: 'the call changes no field',
  },
  async run(ctx, input): Promise<CampaignResource> {
    const { id, ...fields } = input;
    if (Object.values(fields).every((value) => value === undefined)) {
      throw new ServiceError(
        'no_updates',
        'The body has no updatable field. Send at least one of name, description, status, posts_per_day, campaign_length_days, start_date, content_mix.',
      );
    }
    const { db } = ctx;
    return writeTransaction(db, async () => {
      const row = await getCampaignInWorkspace(db, ctx.workspace.id, id);
      const next = await db
        .update(campaigns)
        .set({
          name: fields.name,
          description: fields.description,
          status: fields.status,
          postsPerDay: fields.posts_per_day,
          campaignLengthDays: fields.campaign_length_days,
          startDate: fields.start_date,
          contentMix: fields.content_mix,
          updatedAt: ctx.clock.now(),
        })
        .where(eq(campaigns.id, row.id))
        .returning()
        .get();
      return toCampaignResource(next);
    });
  },
});

/**
 * DELETE /campaigns/{id}: the row goes; the items it generated stay, with `campaign_id` cleared.
 * No event fires: campaigns have no deletion event.
 */
export const deleteCampaign = defineOperation({
  name: 'deleteCampaign',
  buckets: ['write'],
  scope: 'write',
  input: CampaignIdInput,
  output: deletedResource('campaign'),
  async run(ctx, input) {
    const { db } = ctx;
    return writeTransaction(db, async () => {
      const row = await getCampaignInWorkspace(db, ctx.workspace.id, input.id);
      // The row first: a generation batch committing now (another unit, on PostgreSQL) either
      // committed before, and its items are cleared below, or finds the campaign gone and writes none.
      await db.delete(campaigns).where(eq(campaigns.id, row.id)).run();
      await db
        .update(content)
        .set({ campaignId: null, campaignSlot: null })
        .where(and(eq(content.workspaceId, ctx.workspace.id), eq(content.campaignId, row.id)))
        .run();
      return { id: row.id, object: 'campaign' as const, deleted: true as const };
    });
  },
});

/**
 * POST /campaigns/{id}/launch: from draft or paused only, to active with `start_date` now, and
 * `campaign.launched` with the full campaign; the generation run then writes its posts. A workspace with no AI credit left this month cannot
 * launch: each generated post spends one credit. What it asks is the campaign policy's (policy.ts).
 */
export const launchCampaign = defineOperation({
  name: 'launchCampaign',
  buckets: ['write'],
  // Launching generates and schedules posts: the issue puts it with publishing, not with edits.
  scope: LAUNCH_ACCESS.scope,
  input: CampaignIdInput,
  output: CampaignResourceSchema,
  errors: {
    invalid_state: 'the campaign is not draft or paused',
    quota_exceeded: 'no AI credits left this month',
  },
  async run(ctx, input): Promise<CampaignResource> {
    const { db } = ctx;
    const now = ctx.clock.now();
    return writeTransaction(db, async () => {
      const row = await getCampaignInWorkspace(db, ctx.workspace.id, input.id);
      const subject = subjectOf(ctx);
      enforce(judgeCampaignAction(subject, row, await campaignFacts(db, subject), 'launch'));
      const next = await db
        .update(campaigns)
        .set({ status: 'active', startDate: now, updatedAt: now })
        .where(eq(campaigns.id, row.id))
        .returning()
        .get();
      const resource = toCampaignResource(next);
      await recordEvent(db, {
        workspaceId: ctx.workspace.id,
        type: 'campaign.launched',
        data: { campaign: resource },
        at: now,
      });
      await scheduleGeneration(ctx, row.id, now);
      return resource;
    });
  },
});
