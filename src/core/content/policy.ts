import { SCHEDULE_CLOCK_SKEW_MS } from '../dates.ts';
import type { ErrorCode } from '../errors.ts';
import { assertContentChange } from '../people/roles.ts';
import { accessRefusal, enforce, refusalOf, type PolicySubject } from '../policy.ts';
import { approvalRefusal } from './approval.ts';
import { publishContent, updateContent } from './operations.ts';
import { assertChangeable } from './state.ts';
import type { ContentRow } from './serialize.ts';
import { CONTENT_ACTIONS, type ActionVerdict, type ContentAction } from './actions.ts';

export { subjectOf, type PolicySubject } from '../policy.ts';
export { allows, CONTENT_ACTIONS, verdictOf, type ActionVerdict, type ContentAction } from './actions.ts';

/**
 * The one policy for what people and assistants may do with a content item: for a principal, the
 * workspace and a row, every action with, when it is refused, a code and a plain reason. The
 * intents (intents.ts) enforce through it; reads give it back as `allowed_actions`, so a door shows
 * a button exactly when the intent behind it would be accepted. It asks the rules that already
 * exist (scopes, roles, the approval rule, the state rules of update and publish) rather than
 * restating them.
 */
export type PolicyRow = Pick<
  ContentRow,
  'status' | 'publishQueued' | 'scheduledFor' | 'targetPlatforms' | 'createdByType' | 'createdById'
>;

/** How each action reaches the contract: the operation it writes through, the status it moves to. */
const ROUTES: Record<
  ContentAction,
  { operation: typeof updateContent | typeof publishContent; to: ContentRow['status'] }
> = {
  approve_and_schedule: { operation: publishContent, to: 'scheduled' },
  approve_and_publish_now: { operation: publishContent, to: 'approved' },
  approve_only: { operation: updateContent, to: 'approved' },
  reject: { operation: updateContent, to: 'rejected' },
  schedule: { operation: publishContent, to: 'scheduled' },
  publish_now: { operation: publishContent, to: 'approved' },
  move: { operation: updateContent, to: 'scheduled' },
};

const APPROVALS: readonly ContentAction[] = ['approve_and_schedule', 'approve_and_publish_now', 'approve_only'];
/** The actions that queue the item for the publishing run (publish's own preconditions apply). */
const QUEUEING: readonly ContentAction[] = [
  'approve_and_schedule',
  'approve_and_publish_now',
  'schedule',
  'publish_now',
];

/** A time still to come (within the clock skew a schedule allows): what "scheduled for" can queue at. */
export const upcoming = (at: Date | null, now: Date): at is Date =>
  at !== null && at.getTime() >= now.getTime() - SCHEDULE_CLOCK_SKEW_MS;

/** What the item's state allows, action by action (after plan, scope and role): null when it does. */
function stateRefusal(action: ContentAction, row: PolicyRow, now: Date): string | null {
  const planned = upcoming(row.scheduledFor, now);
  if (APPROVALS.includes(action) || action === 'reject') {
    if (row.status !== 'pending_review') {
      return `Only an item waiting for review can be ${action === 'reject' ? 'rejected' : 'approved'}; this one is ${STATE_WORDS[row.status]}.`;
    }
    if (action === 'approve_and_schedule' && !planned) {
      return row.scheduledFor
        ? 'Its planned time has passed: approve and publish now, or give it a new time first.'
        : 'It has no time to be scheduled for: approve and publish now, approve only, or give it a time first.';
    }
    // With a time still to come, approving means going out then; anything else would leave it
    // approved on the calendar without ever being published.
    if ((action === 'approve_and_publish_now' || action === 'approve_only') && planned) {
      return 'It is planned for a time still to come: approve and schedule it for then, or change its time first.';
    }
    return null;
  }
  // A scheduled item may be given a new time (scheduling it again); publishing now is for an approved item left waiting.
  if (action === 'schedule' && row.status === 'scheduled') return null;
  if (action === 'schedule' || action === 'publish_now') {
    if (row.status === 'approved' && !row.publishQueued) return null;
    return row.status === 'approved' || row.status === 'scheduled'
      ? 'It is already queued for publishing.'
      : `Only an approved item that is not scheduled can be ${action === 'schedule' ? 'scheduled' : 'published now'}; this one is ${STATE_WORDS[row.status]}.`;
  }
  // move
  return row.status === 'scheduled' && row.scheduledFor
    ? null
    : `Only scheduled items can be moved; this one is ${STATE_WORDS[row.status]}.`;
}

const STATE_WORDS: Record<ContentRow['status'], string> = {
  draft: 'a draft',
  pending_review: 'waiting for review',
  approved: 'approved',
  scheduled: 'scheduled',
  rejected: 'rejected',
  archived: 'archived',
  publishing: 'being published',
  published: 'published',
};

const refusedVerdict = (action: ContentAction, code: ErrorCode, reason: string): ActionVerdict => ({
  action,
  allowed: false,
  code,
  reason,
});

/** The verdict on one action: plan, scope, role, state, the approval rule, then publish's own preconditions. */
export function judgeContentAction(subject: PolicySubject, row: PolicyRow, action: ContentAction): ActionVerdict {
  const { principal, workspace, now } = subject;
  const route = ROUTES[action];
  const access =
    accessRefusal(subject, route.operation) ??
    refusalOf(() => assertContentChange(principal, { from: row.status, to: route.to, action: 'Changing' }));
  if (access) return refusedVerdict(action, access.code, access.reason);
  const changeable = refusalOf(() => assertChangeable(row, action === 'reject' ? 'rejected' : 'changed'));
  if (changeable) return refusedVerdict(action, changeable.code, changeable.reason);
  const state = stateRefusal(action, row, now);
  if (state) return refusedVerdict(action, 'invalid_state', state);
  // Every action but rejecting and moving approves the item (moving a scheduled item keeps its approval).
  if (action !== 'reject' && action !== 'move') {
    const differ = approvalRefusal(workspace, row, principal);
    if (differ) return refusedVerdict(action, 'forbidden', differ);
  }
  if (QUEUEING.includes(action) && row.targetPlatforms.length === 0) {
    return refusedVerdict(
      action,
      'no_target_platforms',
      'The item has no target_platforms; set them before it can be published.',
    );
  }
  return { action, allowed: true };
}

/** Every action's verdict for the item, in CONTENT_ACTIONS order: what reads give back as `allowed_actions`. */
export const contentPolicy = (subject: PolicySubject, row: PolicyRow): ActionVerdict[] =>
  CONTENT_ACTIONS.map((action) => judgeContentAction(subject, row, action));

/** Refuses, with the verdict's code and reason, an action the policy does not allow. */
export function assertContentAction(subject: PolicySubject, row: PolicyRow, action: ContentAction): void {
  enforce(judgeContentAction(subject, row, action));
}
