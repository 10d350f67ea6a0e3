import type { Runtime } from '../core/context.ts';
import type { ActionVerdict, ContentAction } from '../core/content/actions.ts';
import { contentPolicy, subjectOf } from '../core/content/policy.ts';
import type { ContentRow } from '../core/content/serialize.ts';
import { actionLabel, approvalBlocked } from '../core/content/words.ts';
import type { SignedIn } from '../core/people/sessions.ts';
import { dayKey, localParts, toLocalInput } from '../core/time-zones.ts';

/** One form of an item's actions: where it posts, its button's words, and the one field it asks for, if any. */
export interface ActionForm {
  action: ContentAction;
  label: string;
  path: string;
  then?: 'schedule' | 'publish_now' | 'none';
  field?: {
    name: 'reason' | 'scheduled_for' | 'day';
    label: string;
    type: 'text' | 'datetime-local' | 'date';
    value: string;
  };
}

const APPROVE_THEN = {
  approve_and_schedule: 'schedule',
  approve_and_publish_now: 'publish_now',
  approve_only: 'none',
} as const;

function formOf(action: ContentAction, row: ContentRow, timeZone: string): ActionForm {
  const label = actionLabel(action, row, timeZone);
  const path = `/app/content/${row.id}/`;
  switch (action) {
    case 'approve_and_schedule':
    case 'approve_and_publish_now':
    case 'approve_only':
      return { action, label, path: `${path}approve`, then: APPROVE_THEN[action] };
    case 'reject':
      return {
        action,
        label,
        path: `${path}reject`,
        field: { name: 'reason', label: 'Reason', type: 'text', value: '' },
      };
    case 'schedule':
      return {
        action,
        label,
        path: `${path}schedule`,
        field: {
          name: 'scheduled_for',
          label: `Time to publish (${timeZone})`,
          type: 'datetime-local',
          value: row.scheduledFor ? toLocalInput(row.scheduledFor, timeZone) : '',
        },
      };
    case 'publish_now':
      return { action, label, path: `${path}publish-now` };
    case 'move':
      return {
        action,
        label,
        path: `${path}move`,
        field: {
          name: 'day',
          label: 'New day',
          type: 'date',
          value: row.scheduledFor ? dayKey(localParts(row.scheduledFor, timeZone)) : '',
        },
      };
  }
}

/**
 * What the dashboard offers for an item, made from the content policy alone: every verdict
 * (`allowed_actions`), a form for each allowed action, and why it cannot be approved when the policy
 * refuses that to this person. Pages and templates judge no role or state themselves.
 */
export function itemActionsOf(runtime: Runtime, who: SignedIn, row: ContentRow) {
  const verdicts: ActionVerdict[] = contentPolicy(
    subjectOf({ principal: who.principal, workspace: who.workspace, clock: runtime.clock }),
    row,
  );
  // One pass over the verdicts: a list page asks this for every row.
  const forms: ActionForm[] = [];
  let approvable = false;
  let rejectable = false;
  let movable = false;
  for (const verdict of verdicts) {
    if (!verdict.allowed) continue;
    forms.push(formOf(verdict.action, row, who.workspace.timezone));
    if (verdict.action in APPROVE_THEN) approvable = true;
    else if (verdict.action === 'reject') rejectable = true;
    else if (verdict.action === 'move') movable = true;
  }
  return {
    allowed_actions: verdicts,
    forms,
    blocked: approvalBlocked(row.status, verdicts),
    /** What "Approve selected" and "Reject selected" may take. */
    approvable,
    rejectable,
    movable,
  };
}
