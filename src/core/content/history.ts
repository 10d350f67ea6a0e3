import { and, asc, eq } from 'drizzle-orm';
import { insertRow, type Db } from '../../../db/client.ts';
import { contentHistory, type ContentStatus } from '../../../db/schema/index.ts';
import type { Principal } from '../people/principal.ts';
import type { PublishResult } from '../../../db/schema/index.ts';

/** What happened to an item, in the words its history shows. */
export type ContentAction =
  | 'created'
  | 'edited'
  | 'submitted'
  | 'approved'
  | 'rejected'
  | 'scheduled'
  | 'rescheduled'
  | 'returned to draft'
  | 'queued for publishing'
  | 'archived'
  | 'started publishing'
  | 'published'
  | 'failed to publish';

/** The action a change amounts to: its new status says most, a moved time on a scheduled item says rescheduled. */
export function actionOf(from: ContentStatus, to: ContentStatus, timeMoved: boolean): ContentAction {
  if (from === to) return to === 'scheduled' && timeMoved ? 'rescheduled' : 'edited';
  switch (to) {
    case 'pending_review':
      return 'submitted';
    case 'approved':
      return 'approved';
    case 'rejected':
      return 'rejected';
    case 'scheduled':
      return 'scheduled';
    case 'draft':
      return 'returned to draft';
    case 'archived':
      return 'archived';
    default:
      return 'edited';
  }
}

/** Writes one history line, in the transaction of the change it records. */
export async function recordContentHistory(
  db: Db,
  entry: {
    workspaceId: string;
    contentId: string;
    action: ContentAction;
    from: ContentStatus | null;
    to: ContentStatus;
    by: Principal;
    note?: string | null;
    at: Date;
  },
): Promise<void> {
  // The run writes two lines per item it publishes: the raw prepared insert, not drizzle's builder
  // (which built and prepared the statement again for every line).
  await insertRow(db, contentHistory, {
    workspaceId: entry.workspaceId,
    contentId: entry.contentId,
    action: entry.action,
    fromStatus: entry.from,
    toStatus: entry.to,
    actorType: entry.by.type,
    actorId: entry.by.id,
    actorLabel: entry.by.label,
    note: entry.note ?? null,
    at: entry.at,
  });
}

/** Who the history names for what the publishing run does on its own. */
export const PUBLISHING_RUN: Principal = { type: 'service', id: null, label: 'the publishing run', role: null };

/** A history note stays a line, not a dump of every platform's answer. */
const MAX_NOTE_LENGTH = 500;

/**
 * The publishing run's lines in an item's history, written in the transaction of the step itself:
 * `started` when a run claims the item, then `published` (at least one platform took it; the note
 * names any that refused) or `failed` (none did; the note says why, per platform).
 */
export async function recordPublishingStep(
  db: Db,
  step: {
    workspaceId: string;
    contentId: string;
    from: ContentStatus;
    at: Date;
  } & ({ stage: 'started' } | { stage: 'finished'; to: ContentStatus; results: readonly PublishResult[] }),
): Promise<void> {
  if (step.stage === 'started') {
    await recordContentHistory(db, { ...step, action: 'started publishing', to: 'publishing', by: PUBLISHING_RUN });
    return;
  }
  const refused = step.results.filter((result) => !result.success);
  const published = refused.length < step.results.length;
  const note = refused.map((result) => `${result.platform}: ${result.error ?? 'no answer'}`).join('; ');
  await recordContentHistory(db, {
    workspaceId: step.workspaceId,
    contentId: step.contentId,
    action: published ? 'published' : 'failed to publish',
    from: step.from,
    to: step.to,
    by: PUBLISHING_RUN,
    note: note === '' ? null : note.length > MAX_NOTE_LENGTH ? `${note.slice(0, MAX_NOTE_LENGTH - 1)}…` : note,
    at: step.at,
  });
}

export interface ContentHistoryEntry {
  action: string;
  from: string | null;
  to: string;
  by: string;
  note: string | null;
  at: Date;
}

/** An item's history, oldest first; scoped to the workspace like every read. */
export async function contentHistoryOf(db: Db, workspaceId: string, contentId: string): Promise<ContentHistoryEntry[]> {
  return (
    await db
      .select()
      .from(contentHistory)
      .where(and(eq(contentHistory.workspaceId, workspaceId), eq(contentHistory.contentId, contentId)))
      .orderBy(asc(contentHistory.at), asc(contentHistory.id))
      .all()
  ).map((row) => ({
    action: row.action,
    from: row.fromStatus,
    to: row.toStatus,
    by: row.actorLabel,
    note: row.note,
    at: row.at,
  }));
}
