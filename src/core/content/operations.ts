import { and, eq, sql } from 'drizzle-orm';
import { insertRow, preparedStatements, writeTransaction, type Db } from '../../../db/client.ts';
import { content, type ContentStatus } from '../../../db/schema/index.ts';
import { postsPublishedIn, usagePeriod } from '../accounts/usage.ts';
import { fieldError, notFound, ServiceError } from '../errors.ts';
import { completeCampaignIfDone } from '../campaigns/completion.ts';
import { recordEvent } from '../events/record-event.ts';
import type { ServiceContext } from '../context.ts';
import { newId } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { deletedResource } from '../pagination.ts';
import { connectorsFor } from '../publishing/connectors/index.ts';
import { checkPlatform } from '../publishing/readiness.ts';
import { platformAccountsOf } from '../social-accounts/operations.ts';
import {
  ContentIdInput,
  ContentResource,
  CreateContentInput,
  PublishContentInput,
  UpdateContentInput,
  PublishPreview,
} from './schemas.ts';
import { contentStub, toContentResource, type ContentRow } from './serialize.ts';
import { actionOf, recordContentHistory } from './history.ts';
import { assertContentChange } from '../people/roles.ts';
import { assertNotPast } from '../dates.ts';
import { approves, assertMayApprove, isApprovedStatus, POST_FIELDS } from './approval.ts';
import { assertChangeable } from './state.ts';
import { attachedMedia, checkedAltText, withoutDetached } from './alt-text.ts';

/** Fetch-or-throw, always scoped to the workspace: another workspace's item is simply not found. */
export async function getContentInWorkspace(db: Db, workspaceId: string, id: string): Promise<ContentRow> {
  const row = await statements(db).byId.get({ workspaceId, id });
  if (!row) throw notFound('content item');
  return row;
}

const statements = preparedStatements((db) => ({
  byId: db
    .select()
    .from(content)
    .where(and(eq(content.workspaceId, sql.placeholder('workspaceId')), eq(content.id, sql.placeholder('id'))))
    .prepare(),
}));

/** Columns a new row may leave out: they start null (the publishing run's own are never set on insert). */
type OptionalOnInsert =
  | 'publishedAt'
  | 'campaignId'
  | 'campaignSlot'
  | 'publishRunId'
  | 'leaseToken'
  | 'leaseExpiresAt'
  | 'createdByType'
  | 'createdById'
  | 'approvedByType'
  | 'approvedById'
  | 'reviewNote'
  | 'mediaAltText';
export type NewContentRow = Required<Omit<ContentRow, OptionalOnInsert>> &
  Partial<
    Pick<
      ContentRow,
      | 'publishedAt'
      | 'campaignId'
      | 'campaignSlot'
      | 'createdByType'
      | 'createdById'
      | 'approvedByType'
      | 'approvedById'
      | 'mediaAltText'
    >
  >;

/**
 * Inserts one content row and returns it as stored, without RETURNING: mapping every column back
 * costs more than SQLite's own work (see insertRow).
 */
export async function insertContentRow(db: Db, row: NewContentRow): Promise<ContentRow> {
  const stored = storedContentRow(row);
  await insertRow(db, content, stored);
  return stored;
}

/**
 * A new row as it is stored, the columns left out null. Written out field by field, not spread:
 * `{ ...row, … }` cost ~5 µs a row (measured on campaign generation, about half again the raw
 * insert), and every row built here has the same shape for insertRow and the serialiser.
 */
export function storedContentRow(row: NewContentRow): ContentRow {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    caption: row.caption,
    hashtags: row.hashtags,
    contentType: row.contentType,
    targetPlatforms: row.targetPlatforms,
    mediaUrls: row.mediaUrls,
    mediaAltText: row.mediaAltText ?? {},
    topic: row.topic,
    platformSpecific: row.platformSpecific,
    aspectRatio: row.aspectRatio,
    scheduledFor: row.scheduledFor,
    publishedAt: row.publishedAt ?? null,
    status: row.status,
    publishQueued: row.publishQueued,
    publishResults: row.publishResults,
    campaignId: row.campaignId ?? null,
    campaignSlot: row.campaignSlot ?? null,
    publishRunId: null,
    leaseToken: null,
    leaseExpiresAt: null,
    createdByType: row.createdByType ?? null,
    createdById: row.createdById ?? null,
    approvedByType: row.approvedByType ?? null,
    approvedById: row.approvedById ?? null,
    reviewNote: null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const approvedEvent = (row: ContentRow) => ({ content: { ...contentStub(row), status: row.status } });

export const getContent = defineOperation({
  name: 'getContent',
  buckets: ['read'],
  scope: 'read',
  input: ContentIdInput,
  output: ContentResource,
  async run({ db, workspace }, input) {
    return toContentResource(await getContentInWorkspace(db, workspace.id, input.id));
  },
});

export const createContent = defineOperation({
  name: 'createContent',
  buckets: ['write'],
  scope: 'write',
  input: CreateContentInput,
  output: ContentResource,
  async run(ctx, input) {
    if (input.status === 'scheduled' && !input.scheduled_for) {
      throw fieldError('scheduled_for', 'Status scheduled needs a scheduled_for date-time.');
    }
    assertContentChange(ctx.principal, { from: null, to: input.status, action: 'Creating' });
    const author = { createdByType: ctx.principal.type, createdById: ctx.principal.id };
    const approved = approves(null, input.status);
    if (approved) assertMayApprove(ctx.workspace, author, ctx.principal);
    const { db } = ctx;
    const now = ctx.clock.now();
    if (input.status === 'scheduled') assertNotPast('scheduled_for', input.scheduled_for!, now);
    const created = await writeTransaction(db, async () => {
      const row = storedContentRow({
        ...author,
        ...(approved && { approvedByType: ctx.principal.type, approvedById: ctx.principal.id }),
        id: newId(),
        workspaceId: ctx.workspace.id,
        caption: input.caption,
        hashtags: input.hashtags,
        contentType: input.content_type,
        targetPlatforms: input.target_platforms,
        mediaUrls: input.media_urls,
        mediaAltText: checkedAltText(input.media_alt_text, attachedMedia(input.media_urls, input.platform_specific)),
        topic: input.topic ?? null,
        platformSpecific: input.platform_specific,
        aspectRatio: input.aspect_ratio ?? null,
        scheduledFor: input.scheduled_for ?? null,
        status: input.status,
        publishQueued: input.status === 'scheduled',
        publishResults: [],
        createdAt: now,
        updatedAt: now,
      });
      const resource = toContentResource(row);
      // The row, its event and its history line, sent in this order and awaited together (one
      // round trip on PostgreSQL): each needs only the ones before it on the same connection.
      await Promise.all([
        insertRow(db, content, row),
        recordEvent(db, {
          workspaceId: ctx.workspace.id,
          type: 'content.created',
          data: { content: resource },
          at: now,
        }),
        recordContentHistory(db, {
          workspaceId: ctx.workspace.id,
          contentId: row.id,
          action: 'created',
          from: null,
          to: row.status,
          by: ctx.principal,
          at: now,
        }),
      ]);
      return resource;
    });
    if (created.status === 'scheduled') ctx.wake('publishing');
    return created;
  },
});

/**
 * Whether the item stays queued for the publishing run after a status change: a scheduled item is
 * queued for its time; an approved item keeps a queue it already had; any other status leaves it.
 */
function queuedAfter(row: ContentRow, status: ContentStatus): boolean {
  if (status === 'scheduled') return true;
  if (status === 'approved') return row.status === 'approved' && row.publishQueued;
  return false;
}

export const updateContent = defineOperation({
  name: 'updateContent',
  buckets: ['write'],
  scope: 'write',
  input: UpdateContentInput,
  output: ContentResource,
  errors: {
    no_updates: 'the call changes no field',
    invalid_state: 'the item is archived or being published',
  },
  async run(ctx, input) {
    const { id, review_note: reviewNote, ...fields } = input;
    if (Object.values(fields).every((value) => value === undefined) && reviewNote === undefined) {
      throw new ServiceError(
        'no_updates',
        'The body has no updatable field. Send at least one of caption, hashtags, content_type, target_platforms, media_urls, media_alt_text, topic, platform_specific, aspect_ratio, scheduled_for, status, review_note.',
      );
    }
    const { db } = ctx;
    const now = ctx.clock.now();
    const updated = await writeTransaction(db, async () => {
      const row = await getContentInWorkspace(db, ctx.workspace.id, id);
      assertChangeable(row, 'updated');
      const status = fields.status ?? row.status;
      const scheduledFor = fields.scheduled_for === undefined ? row.scheduledFor : fields.scheduled_for;
      assertContentChange(ctx.principal, { from: row.status, to: status, action: 'Changing' });
      // An edit of what an approved or scheduled item posts approves the new post, so the same rule holds.
      const postEdited = POST_FIELDS.some((field) => fields[field] !== undefined);
      const approval =
        (fields.status !== undefined && approves(row.status, fields.status)) ||
        (isApprovedStatus(status) && postEdited);
      if (approval) assertMayApprove(ctx.workspace, row, ctx.principal);
      if (reviewNote != null && status !== 'rejected') {
        throw fieldError('review_note', 'A review_note is the reason for a rejection: send it with status rejected.');
      }
      if (status === 'scheduled' && !scheduledFor) {
        throw fieldError(
          'scheduled_for',
          'A scheduled item needs a scheduled_for date-time, in this body or already set.',
        );
      }
      // Scheduling, or moving a scheduled item, for a time already past would publish it at once.
      if (status === 'scheduled' && (row.status !== 'scheduled' || fields.scheduled_for !== undefined)) {
        assertNotPast('scheduled_for', scheduledFor!, now);
      }
      // An approval names its approver; leaving approved or scheduled forgets the last one.
      const approver = approval
        ? { approvedByType: ctx.principal.type, approvedById: ctx.principal.id }
        : fields.status !== undefined && !isApprovedStatus(fields.status)
          ? { approvedByType: null, approvedById: null }
          : {};
      const attached = attachedMedia(
        fields.media_urls ?? row.mediaUrls,
        fields.platform_specific ?? row.platformSpecific,
      );
      const next = await db
        .update(content)
        .set({
          caption: fields.caption,
          hashtags: fields.hashtags,
          contentType: fields.content_type,
          targetPlatforms: fields.target_platforms,
          mediaUrls: fields.media_urls,
          // Sent: checked against the media the item will have. Not sent: what no longer names attached media goes.
          mediaAltText: fields.media_alt_text
            ? checkedAltText(fields.media_alt_text, attached)
            : withoutDetached(row.mediaAltText, attached),
          topic: fields.topic,
          platformSpecific: fields.platform_specific,
          aspectRatio: fields.aspect_ratio,
          scheduledFor,
          status,
          publishQueued: fields.status ? queuedAfter(row, fields.status) : row.publishQueued,
          // The reason stays with a rejected item; submitting or approving it again clears it.
          reviewNote: status === 'rejected' ? (reviewNote === undefined ? row.reviewNote : reviewNote) : null,
          ...approver,
          updatedAt: now,
        })
        .where(eq(content.id, row.id))
        .returning()
        .get();
      const resource = toContentResource(next);
      await recordEvent(db, {
        workspaceId: ctx.workspace.id,
        type: 'content.updated',
        data: { content: resource },
        at: now,
      });
      const timeMoved = (row.scheduledFor?.getTime() ?? null) !== (next.scheduledFor?.getTime() ?? null);
      await recordContentHistory(db, {
        workspaceId: ctx.workspace.id,
        contentId: row.id,
        action: actionOf(row.status, next.status, timeMoved),
        from: row.status,
        to: next.status,
        by: ctx.principal,
        note: next.status === 'rejected' ? next.reviewNote : null,
        at: now,
      });
      // By contract a PATCH to approved emits the approved event, even when the item already was.
      if (fields.status === 'approved') {
        await recordEvent(db, {
          workspaceId: ctx.workspace.id,
          type: 'content.approved',
          data: approvedEvent(next),
          at: now,
        });
      }
      // Rejected, or any change to an item of a finished campaign: it may have been the last waiting.
      await completeCampaignIfDone(db, next.campaignId, now);
      return resource;
    });
    if (updated.publish_queued) ctx.wake('publishing');
    return updated;
  },
});

export const deleteContent = defineOperation({
  name: 'deleteContent',
  buckets: ['write'],
  scope: 'write',
  input: ContentIdInput,
  output: deletedResource('content'),
  errors: {
    invalid_state: 'the item is already archived, or is being published',
  },
  async run(ctx, input) {
    const { db } = ctx;
    const now = ctx.clock.now();
    return writeTransaction(db, async () => {
      const row = await getContentInWorkspace(db, ctx.workspace.id, input.id);
      assertChangeable(row, 'deleted');
      assertContentChange(ctx.principal, { from: row.status, to: 'archived', action: 'Archiving' });
      await db
        .update(content)
        .set({ status: 'archived', publishQueued: false, updatedAt: now })
        .where(eq(content.id, row.id))
        .run();
      await recordEvent(db, { workspaceId: ctx.workspace.id, type: 'content.deleted', data: { id: row.id }, at: now });
      await recordContentHistory(db, {
        workspaceId: ctx.workspace.id,
        contentId: row.id,
        action: 'archived',
        from: row.status,
        to: 'archived',
        by: ctx.principal,
        at: now,
      });
      await completeCampaignIfDone(db, row.campaignId, now);
      return { id: row.id, object: 'content' as const, deleted: true as const };
    });
  },
});

/**
 * What the publish request itself refuses, before anything is queued: the item's state, its
 * platforms and the month's quota. A dry run refuses the same way (docs/decisions.md, Publish preview).
 */
async function assertPublishable(ctx: ServiceContext, row: ContentRow, now: Date): Promise<void> {
  assertChangeable(row, 'published');
  if (row.targetPlatforms.length === 0) {
    throw new ServiceError(
      'no_target_platforms',
      'The item has no target_platforms; set them with an update before publishing.',
    );
  }
  const quota = ctx.workspace.features.posts_per_month;
  if ((await postsPublishedIn(ctx.db, ctx.workspace.id, usagePeriod(now))) >= quota) {
    throw new ServiceError(
      'quota_exceeded',
      `The plan's ${quota} posts for this month are used up; GET /api/v1/me shows usage.`,
    );
  }
}

/** What publishing refuses for the item itself, before any platform: a dry run refuses it the same way. */
const PUBLISH_ERRORS = {
  no_target_platforms: 'the item has no target_platforms; set them with an update first',
  quota_exceeded: "the plan's posts for this month are used up",
  invalid_state: 'the item is archived or already being published',
} as const;

/**
 * The publish preview (a publish with dry_run): the request's own checks, then every target
 * platform as the publishing run would judge it now (checkPlatform). Reads only, from the `read`
 * bucket: no status, no updated_at, no event, no publish token.
 */

export const previewPublish = defineOperation({
  name: 'previewPublish',
  buckets: ['read'],
  // A dry run asks the scope of the publish it previews, so a door that gates the publish tool by
  // its scope (the MCP step-up) and the core agree; any member may still read what it would do.
  scope: 'publish',
  role: 'viewer',
  input: PublishContentInput,
  output: PublishPreview,
  errors: PUBLISH_ERRORS,
  async run(ctx, input): Promise<PublishPreview> {
    const row = await getContentInWorkspace(ctx.db, ctx.workspace.id, input.id);
    await assertPublishable(ctx, row, ctx.clock.now());
    assertMayApprove(ctx.workspace, row, ctx.principal);
    const connectors = connectorsFor(ctx);
    const accountFor = await platformAccountsOf(ctx.db, ctx.workspace.id);
    const platforms = row.targetPlatforms.map((platform) => {
      const check = checkPlatform(connectors, accountFor, row, platform);
      const account = check.lookup && check.lookup.state !== 'none' ? check.lookup.account : null;
      return {
        platform,
        account: account && { id: account.id, username: account.username, mode: account.mode, status: account.status },
        ready: check.problems.length === 0,
        problems: check.messages,
      };
    });
    return {
      object: 'publish_preview',
      content_id: row.id,
      ready: platforms.every((platform) => platform.ready),
      platforms,
    };
  },
});

export const publishContent = defineOperation({
  name: 'publishContent',
  buckets: ['write', 'publish'],
  scope: 'publish',
  input: PublishContentInput,
  output: ContentResource,
  errors: PUBLISH_ERRORS,
  dryRun: previewPublish,
  async run(ctx, input) {
    const { db } = ctx;
    const now = ctx.clock.now();
    const published = await writeTransaction(db, async () => {
      const row = await getContentInWorkspace(db, ctx.workspace.id, input.id);
      await assertPublishable(ctx, row, now);
      // Publishing approves the item: the same rule, and it names its approver.
      assertMayApprove(ctx.workspace, row, ctx.principal);
      const at = input.scheduled_for ?? null;
      const next = await db
        .update(content)
        .set({
          approvedByType: ctx.principal.type,
          approvedById: ctx.principal.id,
          // A future time schedules the item; none (or a past one) queues it for the next run.
          status: at && at.getTime() > now.getTime() ? 'scheduled' : 'approved',
          scheduledFor: at,
          publishQueued: true,
          updatedAt: now,
        })
        .where(eq(content.id, row.id))
        .returning()
        .get();
      await recordEvent(db, {
        workspaceId: ctx.workspace.id,
        type: 'content.approved',
        data: approvedEvent(next),
        at: now,
      });
      await recordContentHistory(db, {
        workspaceId: ctx.workspace.id,
        contentId: row.id,
        action: next.status === 'scheduled' ? 'scheduled' : 'queued for publishing',
        from: row.status,
        to: next.status,
        by: ctx.principal,
        at: now,
      });
      return toContentResource(next);
    });
    ctx.wake('publishing');
    return published;
  },
});
