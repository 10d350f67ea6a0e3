import { eq, sql } from 'drizzle-orm';
import { hostname } from 'node:os';
import { preparedStatements, type Db } from '../../../db/client.ts';
import {
  content,
  publishAttempts,
  publishRuns,
  type AttemptStatus,
  type PublishResult,
} from '../../../db/schema/index.ts';
import { contentStub, type ContentRow } from '../content/serialize.ts';
import { completeCampaignIfDone } from '../campaigns/completion.ts';
import { recordPublishingStep } from '../content/history.ts';
import { recordEvent } from '../events/record-event.ts';
import { newId } from '../ids.ts';
import { webUrlOrNull } from './permalinks.ts';

/** What an attempt whose outcome nobody saw is reported as; it is never retried blindly. */
export const UNKNOWN_OUTCOME = 'outcome unknown: check the platform before publishing again';

export type AttemptRow = typeof publishAttempts.$inferSelect;

/**
 * The columns of an item the run reads, once per run: what its posts are composed from (post.ts) and
 * what the finish records. Not the whole row: the rest (earlier publish results among them) would be
 * parsed for nothing on every item.
 */
export const RUN_ITEM_COLUMNS = {
  id: content.id,
  workspaceId: content.workspaceId,
  status: content.status,
  targetPlatforms: content.targetPlatforms,
  publishedAt: content.publishedAt,
  campaignId: content.campaignId,
  caption: content.caption,
  hashtags: content.hashtags,
  mediaUrls: content.mediaUrls,
  contentType: content.contentType,
  platformSpecific: content.platformSpecific,
  mediaAltText: content.mediaAltText,
};

export type RunItem = Pick<ContentRow, keyof typeof RUN_ITEM_COLUMNS>;

export interface NewAttempt {
  runId: string;
  workspaceId: string;
  contentId: string;
  platform: string;
  socialAccountId: string | null;
  status: AttemptStatus;
  error: string | null;
  at: Date;
}

/** This process, as recorded on the runs it claims. */
const THIS_PROCESS = `${hostname()}:${process.pid}`;

/** Opens a run: one pass of the publishing run over one item, claimed by this process. */
export async function startRun(
  db: Db,
  run: { id: string; workspaceId: string; contentId: string; at: Date },
): Promise<void> {
  await statements(db).startRun.run({
    id: run.id,
    workspaceId: run.workspaceId,
    contentId: run.contentId,
    startedAt: run.at.getTime(),
    claimedBy: THIS_PROCESS,
  });
}

/** Records one platform attempt. A pending one is written, and committed, before the platform is called. */
export async function recordAttempt(db: Db, attempt: NewAttempt): Promise<string> {
  const { id, written } = startAttempt(db, attempt);
  await written;
  return id;
}

/** An attempt whose insert has been sent: its id, and the insert's completion (already handled, so awaiting it later is safe). */
export interface StartedAttempt {
  id: string;
  written: Promise<unknown>;
}

/** As recordAttempt, but answers at once, for a caller that sends several inserts before awaiting them. */
export function startAttempt(db: Db, attempt: NewAttempt): StartedAttempt {
  const id = newId();
  const written = statements(db).insertAttempt.run({
    id,
    runId: attempt.runId,
    workspaceId: attempt.workspaceId,
    contentId: attempt.contentId,
    platform: attempt.platform,
    socialAccountId: attempt.socialAccountId,
    status: attempt.status,
    error: attempt.error,
    attemptedAt: attempt.at.getTime(),
    finishedAt: attempt.status === 'pending' ? null : attempt.at.getTime(),
  });
  // A failure is the awaiting caller's to hear; this keeps it from counting as unhandled meanwhile.
  written.catch(() => {});
  return { id, written };
}

/** Settles a pending attempt; a no-op when it is no longer pending (someone reported it unknown). */
export async function settleAttempt(
  db: Db,
  id: string,
  outcome: {
    status: Exclude<AttemptStatus, 'pending'>;
    platformPostId?: string | null;
    url?: string | null;
    notice?: string | null;
    error?: string | null;
  },
  at: Date,
): Promise<void> {
  await statements(db).settleAttempt.run({
    id,
    status: outcome.status,
    platformPostId: outcome.platformPostId ?? null,
    // Whatever a platform answers, only an http(s) URL is stored as the post's link.
    url: webUrlOrNull(outcome.url),
    notice: outcome.notice ?? null,
    error: outcome.error ?? null,
    finishedAt: at.getTime(),
  });
}

export async function attemptsOf(db: Db, runId: string): Promise<AttemptRow[]> {
  return statements(db).attemptsOfRun.all({ runId });
}

/**
 * Ends a run from its recorded attempts: at least one platform
 * accepted → `published` with `published_at` and `content.published`; every platform rejected →
 * back to `approved`, no longer queued, and `content.publish_failed` (entries without
 * `platform_post_id`). Either way `publish_results` holds each platform's outcome and the lease is
 * released. With `leaseToken`, the item is finished only while that lease still holds it (checked
 * by the update itself, so a takeover committed since the caller last looked wins): `lease_lost`
 * then, and nothing is written. Without one, the item is still queued, held by the caller's claim.
 */
export async function finishRun(
  db: Db,
  item: RunItem,
  runId: string,
  now: Date,
  leaseToken?: string,
): Promise<'published' | 'failed' | 'lease_lost'> {
  const order = new Map(item.targetPlatforms.map((platform, index) => [platform, index]));
  const attempts = (await attemptsOf(db, runId)).sort(
    (a, b) => (order.get(a.platform) ?? 0) - (order.get(b.platform) ?? 0),
  );
  const results: PublishResult[] = attempts.map((a) => ({
    platform: a.platform,
    success: a.status === 'published',
    platform_post_id: a.platformPostId,
    url: a.status === 'published' ? a.url : null,
    notice: a.status === 'published' ? a.notice : null,
    error: a.status === 'published' ? null : (a.error ?? UNKNOWN_OUTCOME),
    attempted_at: a.attemptedAt.toISOString(),
  }));
  const published = results.some((r) => r.success);
  const outcome = published ? 'published' : 'failed';
  const finished = {
    id: item.id,
    status: published ? 'published' : 'approved',
    publishedAt: published ? now.getTime() : (item.publishedAt?.getTime() ?? null),
    publishResults: JSON.stringify(results),
    now: now.getTime(),
  };
  if (leaseToken === undefined) await statements(db).finishQueuedItem.run(finished);
  else if ((await statements(db).finishHeldItem.run({ ...finished, leaseToken })).changes !== 1) return 'lease_lost';
  const stub = contentStub(item);
  const event = published
    ? {
        type: 'content.published' as const,
        data: {
          content: stub,
          published_at: now.toISOString(),
          platforms: results.map(({ platform, success, platform_post_id, error }) => ({
            platform,
            success,
            platform_post_id,
            error,
          })),
        },
      }
    : {
        type: 'content.publish_failed' as const,
        data: {
          content: stub,
          failed_at: now.toISOString(),
          platforms: results.map(({ platform, success, error }) => ({ platform, success, error })),
        },
      };
  // Three writes that need nothing of each other, made at once: on PostgreSQL they leave together
  // on the unit's connection instead of one round trip each.
  await Promise.all([
    statements(db).finishRun.run({ id: runId, outcome, finishedAt: now.getTime() }),
    recordPublishingStep(db, {
      stage: 'finished',
      workspaceId: item.workspaceId,
      contentId: item.id,
      from: item.status,
      to: published ? 'published' : 'approved',
      results,
      at: now,
    }),
    recordEvent(db, { workspaceId: item.workspaceId, ...event, at: now }),
  ]);
  // Published or failed, the item is done: it may have been its campaign's last.
  await completeCampaignIfDone(db, item.campaignId, now);
  return outcome;
}

/**
 * Fails a queued item on every platform for one reason (quota reached, subscription inactive)
 * without calling any platform: a run of its own, one rejected attempt per platform, finished.
 */
export async function rejectEveryPlatform(db: Db, contentId: string, reason: string, now: Date): Promise<void> {
  const item = await statements(db).runItem.get({ id: contentId });
  if (!item) return;
  const runId = newId();
  await startRun(db, { id: runId, workspaceId: item.workspaceId, contentId, at: now });
  for (const platform of item.targetPlatforms) {
    await recordAttempt(db, {
      runId,
      workspaceId: item.workspaceId,
      contentId,
      platform,
      socialAccountId: null,
      status: 'rejected',
      error: reason,
      at: now,
    });
  }
  await finishRun(db, item, runId, now);
}

/** The item named by `id` is still held under `leaseToken` (placeholders). */
export const HELD_UNDER_LEASE = sql`${content.id} = ${sql.placeholder('id')} and ${content.leaseToken} = ${sql.placeholder('leaseToken')} and ${content.status} = 'publishing'`;

/** An item finished: out of the queue, its lease released. */
const FINISHED = {
  status: sql`${sql.placeholder('status')}`,
  publishedAt: sql`${sql.placeholder('publishedAt')}`,
  publishResults: sql`${sql.placeholder('publishResults')}`,
  publishQueued: false,
  publishRunId: null,
  leaseToken: null,
  leaseExpiresAt: null,
  updatedAt: sql`${sql.placeholder('now')}`,
};

const statements = preparedStatements((db) => ({
  runItem: db
    .select(RUN_ITEM_COLUMNS)
    .from(content)
    .where(sql`${content.id} = ${sql.placeholder('id')}`)
    .prepare(),
  insertAttempt: db
    .insert(publishAttempts)
    .values({
      id: sql.placeholder('id'),
      runId: sql.placeholder('runId'),
      workspaceId: sql.placeholder('workspaceId'),
      contentId: sql.placeholder('contentId'),
      platform: sql.placeholder('platform'),
      socialAccountId: sql.placeholder('socialAccountId'),
      status: sql.placeholder('status'),
      error: sql.placeholder('error'),
      attemptedAt: sql`${sql.placeholder('attemptedAt')}`,
      finishedAt: sql`${sql.placeholder('finishedAt')}`,
    })
    .prepare(),
  settleAttempt: db
    .update(publishAttempts)
    .set({
      status: sql`${sql.placeholder('status')}`,
      platformPostId: sql`${sql.placeholder('platformPostId')}`,
      url: sql`${sql.placeholder('url')}`,
      notice: sql`${sql.placeholder('notice')}`,
      error: sql`${sql.placeholder('error')}`,
      finishedAt: sql`${sql.placeholder('finishedAt')}`,
    })
    .where(sql`${publishAttempts.id} = ${sql.placeholder('id')} and ${publishAttempts.status} = 'pending'`)
    .prepare(),
  attemptsOfRun: db
    .select()
    .from(publishAttempts)
    .where(eq(publishAttempts.runId, sql.placeholder('runId')))
    .prepare(),
  finishQueuedItem: db
    .update(content)
    .set(FINISHED)
    .where(eq(content.id, sql.placeholder('id')))
    .prepare(),
  finishHeldItem: db.update(content).set(FINISHED).where(HELD_UNDER_LEASE).prepare(),
  finishRun: db
    .update(publishRuns)
    .set({ outcome: sql`${sql.placeholder('outcome')}`, finishedAt: sql`${sql.placeholder('finishedAt')}` })
    .where(eq(publishRuns.id, sql.placeholder('id')))
    .prepare(),
  startRun: db
    .insert(publishRuns)
    .values({
      id: sql.placeholder('id'),
      workspaceId: sql.placeholder('workspaceId'),
      contentId: sql.placeholder('contentId'),
      startedAt: sql`${sql.placeholder('startedAt')}`,
      claimedBy: sql.placeholder('claimedBy'),
    })
    .prepare(),
}));
