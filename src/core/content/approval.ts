import type { ContentActorType, ContentStatus } from '../../../db/schema/index.ts';
import { ServiceError } from '../errors.ts';

/** Who approved an item, or is about to: a person, a key, a client or the service (a principal's type and id). */
export interface Approver {
  type: ContentActorType;
  id: string | null;
}

/** The statuses in which an item is approved to go out: approved, and scheduled (approved for a time). */
export const isApprovedStatus = (status: ContentStatus): boolean => status === 'approved' || status === 'scheduled';

/**
 * Whether a status change is an approval: every way into approved or scheduled, on create (`from`
 * null) and on update, approving again included (the contract's PATCH to approved is an approval
 * even when the item already is). Only a scheduled item kept scheduled (a new time) is not one.
 * An edit of what an approved or scheduled item posts is one too (POST_FIELDS, below, says which fields).
 */
export const approves = (from: ContentStatus | null, to: ContentStatus): boolean =>
  isApprovedStatus(to) && !(from === 'scheduled' && to === 'scheduled');

/**
 * The one rule on who may approve an item, for every door and for the publishing run: with the
 * workspace's "approver must differ from author" on, the person who created an item may not
 * approve it (nor schedule or publish it, which approve it too). Keys, clients and the service are
 * not people, so the rule does not apply to them. Answers why `approver` may not approve `item`, or
 * null when they may.
 */
export function approvalRefusal(
  workspace: { approverMustDiffer: boolean },
  item: { createdByType: ContentActorType | null; createdById: string | null },
  approver: Approver | null,
): string | null {
  if (!workspace.approverMustDiffer || approver?.type !== 'user' || item.createdByType !== 'user') return null;
  return approver.id === item.createdById
    ? 'This workspace requires the approver to differ from the author: someone else must approve this item.'
    : null;
}

/** Refuses, with 403 forbidden, an approval `approvalRefusal` does not allow. */
export function assertMayApprove(...args: Parameters<typeof approvalRefusal>): void {
  const refusal = approvalRefusal(...args);
  if (refusal) throw new ServiceError('forbidden', refusal);
}

/** The fields that decide what an item posts (and where): changing them on an approved item approves the change. */
export const POST_FIELDS = [
  'caption',
  'hashtags',
  'content_type',
  'target_platforms',
  'media_urls',
  'platform_specific',
  'aspect_ratio',
] as const;
