import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { content, publishAttempts, publishRuns, type AttemptStatus } from '../../db/schema/index.ts';
import type { Workspace } from '../../src/core/accounts/workspaces.ts';
import type { Runtime } from '../../src/core/context.ts';
import { makeContent } from './factories.ts';

import { UNKNOWN_OUTCOME } from '../../src/core/publishing/finish.ts';

export { UNKNOWN_OUTCOME };

export interface PastRun {
  runId: string;
  contentId: string;
  outcome: 'published' | 'failed' | null;
  finishedAt: Date | null;
}

/**
 * Leaves one pass of the publishing run over one item in the database exactly as the run would:
 * a content item (made through the core, unless `contentId` names an existing one), its
 * publish_runs row and one publish_attempts row per platform.
 *
 * `platforms` maps each platform to its attempt's status. Finished attempts (published, rejected,
 * unknown) finish at `finishedAt`; a `pending` one is still being called, so it has no finished_at
 * and neither has the run (outcome null, item in `publishing`). Otherwise the run finishes at
 * `finishedAt`, `published` when at least one platform published, `failed` when every one failed.
 */
export async function recordPublishRun(
  runtime: Runtime,
  workspace: Workspace,
  options: {
    finishedAt: Date | string;
    platforms: Record<string, AttemptStatus>;
    contentId?: string;
    /** How long before finishedAt the run started (default 5 s). */
    tookMs?: number;
  },
): Promise<PastRun> {
  const finishedAt = new Date(options.finishedAt);
  const startedAt = new Date(finishedAt.getTime() - (options.tookMs ?? 5000));
  const entries = Object.entries(options.platforms);
  if (entries.length === 0) throw new Error('a run attempts at least one platform');
  const contentId =
    options.contentId ??
    (
      await makeContent(runtime, workspace, {
        target_platforms: entries.map(([platform]) => platform),
        status: 'approved',
      })
    ).id;

  const inProgress = entries.some(([, status]) => status === 'pending');
  const outcome = inProgress ? null : entries.some(([, status]) => status === 'published') ? 'published' : 'failed';
  const runId = randomUUID();
  const { db } = runtime;
  await db
    .insert(publishRuns)
    .values({
      id: runId,
      workspaceId: workspace.id,
      contentId,
      startedAt,
      finishedAt: inProgress ? null : finishedAt,
      outcome,
    })
    .run();
  await db
    .insert(publishAttempts)
    .values(
      entries.map(([platform, status], i) => ({
        id: randomUUID(),
        runId,
        workspaceId: workspace.id,
        contentId,
        platform,
        socialAccountId: null,
        status,
        platformPostId: status === 'published' ? `sandbox_${randomUUID()}` : null,
        error: status === 'rejected' ? `${platform} rejected the post` : status === 'unknown' ? UNKNOWN_OUTCOME : null,
        // Attempts are recorded one after another, each before its platform is called.
        attemptedAt: new Date(startedAt.getTime() + i),
        finishedAt: status === 'pending' ? null : finishedAt,
      })),
    )
    .run();
  await db
    .update(content)
    .set(
      outcome === 'published'
        ? { status: 'published', publishedAt: finishedAt, publishQueued: false, updatedAt: finishedAt }
        : outcome === 'failed'
          ? { status: 'approved', publishQueued: false, updatedAt: finishedAt }
          : { status: 'publishing', publishRunId: runId },
    )
    .where(eq(content.id, contentId))
    .run();
  return { runId, contentId, outcome, finishedAt: inProgress ? null : finishedAt };
}

/** The instant the known history is seen from: testRuntime's clock start. */
export const HISTORY_NOW = '2026-03-10T12:00:30.000Z';

/**
 * A known history, written down here so the tests can compute every figure by hand. Seen from
 * HISTORY_NOW (Tuesday 2026-03-10), workspace `ws`:
 *
 * | run | finished at (UTC)          | twitter   | linkedin  | instagram | facebook  | tiktok   | item      |
 * |-----|----------------------------|-----------|-----------|-----------|-----------|----------|-----------|
 * | r1  | 2026-03-10 09:00           | published | published | rejected  |           |          | published |
 * | r2  | 2026-03-10 11:00           | rejected  | unknown   | rejected  |           |          | failed    |
 * | r3  | 2026-03-09 23:59:59.999    | published |           |           | rejected  |          | published |
 * | r4  | 2026-03-09 00:00:00.000    |           | rejected  |           |           |          | failed    |
 * | r5  | 2026-03-08 14:00           | published | published |           |           | rejected | published |
 * | r6  | running; twitter at 12:00:10 on 03-10 | published | pending |   |           |          | (none)    |
 * | r7  | 2026-02-09 00:00:00.000    |           |           |           | published |          | published |
 * | r8  | 2026-02-08 23:59:59.999    | published | rejected  |           |           |          | published |
 * | r9  | 2025-12-20 08:00           |           |           | rejected  |           | rejected | failed    |
 *
 * and workspace `other`: o1 2026-03-10 10:00 twitter + linkedin published; o2 2026-03-09 10:00
 * facebook rejected; o3 2026-02-20 12:00 tiktok published, instagram unknown.
 */
export async function seedKnownHistory(runtime: Runtime, ws: Workspace, other: Workspace): Promise<void> {
  const run = async (workspace: Workspace, finishedAt: string, platforms: Record<string, AttemptStatus>) =>
    recordPublishRun(runtime, workspace, { finishedAt, platforms });
  await run(ws, '2026-03-10T09:00:00.000Z', { twitter: 'published', linkedin: 'published', instagram: 'rejected' });
  await run(ws, '2026-03-10T11:00:00.000Z', { twitter: 'rejected', linkedin: 'unknown', instagram: 'rejected' });
  await run(ws, '2026-03-09T23:59:59.999Z', { twitter: 'published', facebook: 'rejected' });
  await run(ws, '2026-03-09T00:00:00.000Z', { linkedin: 'rejected' });
  await run(ws, '2026-03-08T14:00:00.000Z', { twitter: 'published', linkedin: 'published', tiktok: 'rejected' });
  await run(ws, '2026-03-10T12:00:10.000Z', { twitter: 'published', linkedin: 'pending' });
  await run(ws, '2026-02-09T00:00:00.000Z', { facebook: 'published' });
  await run(ws, '2026-02-08T23:59:59.999Z', { twitter: 'published', linkedin: 'rejected' });
  await run(ws, '2025-12-20T08:00:00.000Z', { instagram: 'rejected', tiktok: 'rejected' });

  await run(other, '2026-03-10T10:00:00.000Z', { twitter: 'published', linkedin: 'published' });
  await run(other, '2026-03-09T10:00:00.000Z', { facebook: 'rejected' });
  await run(other, '2026-02-20T12:00:00.000Z', { tiktok: 'published', instagram: 'unknown' });
}
