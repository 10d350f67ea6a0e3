import { localParts } from '../time-zones.ts';
import type { ActionVerdict, ContentAction } from './actions.ts';

/**
 * The words people read for a content item's state and for what they can do with it: one set for
 * the dashboard and the MCP App views alike (the views bundle this module, so it uses Intl only).
 */

export const STATUS_WORDS: Readonly<Record<string, string>> = {
  draft: 'Draft',
  pending_review: 'Waiting for review',
  approved: 'Approved',
  scheduled: 'Scheduled',
  rejected: 'Rejected',
  archived: 'Archived',
  publishing: 'Publishing',
  published: 'Published',
};

/**
 * How an item's state reads. An approved item is either queued for the next publishing run or
 * waiting for someone to schedule or publish it, and the second must never read as if it will go out.
 */
export function statusWord(status: string, publishQueued = false): string {
  if (status === 'approved') return publishQueued ? 'Approved, publishing next' : 'Approved, not scheduled';
  return STATUS_WORDS[status] ?? status;
}

/** A status as a history line names it (where whether it was queued is not known). */
export const plainStatusWord = (status: string): string => STATUS_WORDS[status] ?? status;

/** Whether the publishing run will take the item (scheduled, or approved and queued): what the calendar marks. */
export const isQueued = (status: string, publishQueued: boolean): boolean =>
  publishQueued && (status === 'scheduled' || status === 'approved');

/** The calendar's mark beside an item's time, in words (never colour alone). */
export const queueMark = (status: string, publishQueued: boolean): string =>
  status === 'published' || status === 'publishing'
    ? statusWord(status)
    : isQueued(status, publishQueued)
      ? 'Queued'
      : 'Not scheduled';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Fri 4 Dec, 15:00 (Europe/Paris)": an instant as the workspace's clock shows it, its zone named. */
export function plannedFor(at: Date, timeZone: string): string {
  const p = localParts(at, timeZone);
  const weekday = WEEKDAYS[new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay()];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${weekday} ${p.day} ${MONTHS[p.month - 1]}, ${pad(p.hour)}:${pad(p.minute)} (${timeZone})`;
}

/** The button's words for an action on an item. */
export function actionLabel(action: ContentAction, item: { scheduledFor: Date | null }, timeZone: string): string {
  switch (action) {
    case 'approve_and_schedule':
      return item.scheduledFor
        ? `Approve and schedule for ${plannedFor(item.scheduledFor, timeZone)}`
        : 'Approve and schedule';
    case 'approve_and_publish_now':
      return 'Approve and publish now';
    case 'approve_only':
      return 'Approve only';
    case 'reject':
      return 'Reject';
    case 'schedule':
      return 'Schedule';
    case 'publish_now':
      return 'Publish now';
    case 'move':
      return 'Move';
  }
}

const APPROVALS: readonly ContentAction[] = ['approve_and_schedule', 'approve_and_publish_now', 'approve_only'];

/**
 * Why a person sees no Approve button on an item waiting for review, in the policy's own words: the
 * reason of the first approval refused for who they are (their role, the approver rule, a scope or
 * the plan), or null when an approval is offered or only the item's state stands in the way.
 */
export function approvalBlocked(status: string, verdicts: readonly ActionVerdict[] | undefined): string | null {
  if (status !== 'pending_review' || !verdicts) return null;
  const approvals = verdicts.filter((verdict) => APPROVALS.includes(verdict.action));
  if (approvals.some((verdict) => verdict.allowed)) return null;
  for (const verdict of approvals) if (!verdict.allowed && verdict.code !== 'invalid_state') return verdict.reason;
  return null;
}
