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
  const base = { action, label: actionLabel(action, row, timeZone) };
  const path = (tail: string) => `/app/content/${row.id}/${tail}`;
  switch (action) {
    case 'approve_and_schedule':
    case 'approve_and_publish_now':
    case 'approve_only':
      return { ...base, path: path('approve'), then: APPROVE_THEN[action] };
    case 'reject':
      return { ...base, path: path('reject'), field: { name: 'reason', label: 'Reason', type: 'text', value: '' } };
    case 'schedule':
      return {
        ...base,
        path: path('schedule'),
        field: {
          name: 'scheduled_for',
          label: `Time to publish (${timeZone})`,
          type: 'datetime-local',
          value: row.scheduledFor ? toLocalInput(row.scheduledFor, timeZone) : '',
        },
      };
    case 'publish_now':
      return { ...base, path: path('publish-now') };
    case 'move':
      return {
        ...base,
        path: path('move'),
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
  const allowed = (action: ContentAction) => verdicts.some((v) => v.action === action && v.allowed);
  return {
    allowed_actions: verdicts,
    forms: verdicts.filter((v) => v.allowed).map((v) => formOf(v.action, row, who.workspace.timezone)),
    blocked: approvalBlocked(row.status, verdicts),
    /** What "Approve selected" and "Reject selected" may take. */
    approvable: allowed('approve_and_schedule') || allowed('approve_and_publish_now') || allowed('approve_only'),
    rejectable: allowed('reject'),
    movable: allowed('move'),
  };
}
