import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { contentHistory, type ContentStatus } from '../../../db/schema/index.ts';
import type { Principal } from '../people/principal.ts';

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
  | 'archived';

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
export function recordContentHistory(
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
): void {
  db.insert(contentHistory)
    .values({
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
    })
    .run();
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
export function contentHistoryOf(db: Db, workspaceId: string, contentId: string): ContentHistoryEntry[] {
  return db
    .select()
    .from(contentHistory)
    .where(and(eq(contentHistory.workspaceId, workspaceId), eq(contentHistory.contentId, contentId)))
    .orderBy(asc(contentHistory.at), asc(contentHistory.id))
    .all()
    .map((row) => ({
      action: row.action,
      from: row.fromStatus,
      to: row.toStatus,
      by: row.actorLabel,
      note: row.note,
      at: row.at,
    }));
}
