import { allows, type ContentAction } from '../../../core/content/actions.ts';
import type { ContentResource } from '../../../core/content/serialize.ts';
import { actionLabel, approvalBlocked, plannedFor } from '../../../core/content/words.ts';
import { dayKey, fromLocal, localParts, parseLocalInput, toLocalInput } from '../../../core/time-zones.ts';
import { html, type SafeHtml } from '../../../web/preview/html.ts';
import { VIEW_TOOLS, type ViewData } from '../view-data.ts';

/**
 * An item's buttons in both views, made only from the policy's verdicts the server sent
 * (`allowed_actions`), each calling its view-only tool one to one. No role or state is judged here.
 */

const APPROVE_THEN: ReadonlyArray<[ContentAction, 'schedule' | 'publish_now' | 'none']> = [
  ['approve_and_schedule', 'schedule'],
  ['approve_and_publish_now', 'publish_now'],
  ['approve_only', 'none'],
];

/** The item's actions, and why it cannot be approved when the policy says so for this person. */
export function actionBlock(item: ContentResource, data: ViewData, describedBy?: string): SafeHtml {
  const verdicts = data.allowed_actions[item.id];
  const timeZone = data.timezone;
  const at = item.scheduled_for ? new Date(item.scheduled_for) : null;
  const label = (action: ContentAction) => actionLabel(action, { scheduledFor: at }, timeZone);
  const described = describedBy ? html`aria-describedby="${describedBy}"` : '';
  const id = item.id;
  const buttons: SafeHtml[] = [];
  for (const [action, then] of APPROVE_THEN) {
    if (!allows(verdicts, action)) continue;
    buttons.push(
      html`<button class="primary" data-intent="approve" data-then="${then}" data-id="${id}" ${described}>
        ${label(action)}
      </button>`,
    );
  }
  if (allows(verdicts, 'publish_now')) {
    buttons.push(
      html`<button class="primary" data-intent="publish_now" data-id="${id}" ${described}>
        ${label('publish_now')}
      </button>`,
    );
  }
  if (allows(verdicts, 'schedule')) {
    buttons.push(
      html`<span class="select">
        <label for="when-${id}">Time to publish (${timeZone})</label>
        <input type="datetime-local" id="when-${id}" value="${at ? toLocalInput(at, timeZone) : ''}" />
        <button data-intent="schedule" data-id="${id}" ${described}>${label('schedule')}</button>
      </span>`,
    );
  }
  if (allows(verdicts, 'move')) {
    buttons.push(
      html`<span class="select">
        <label for="day-${id}">New day</label>
        <input type="date" id="day-${id}" value="${at ? dayKey(localParts(at, timeZone)) : ''}" />
        <button data-intent="move" data-id="${id}" ${described}>${label('move')}</button>
      </span>`,
    );
  }
  if (allows(verdicts, 'reject')) {
    buttons.push(
      html`<details>
        <summary>Reject…</summary>
        <label for="reason-${id}">Reason for the author</label>
        <textarea id="reason-${id}" maxlength="1000"></textarea>
        <button data-intent="reject" data-id="${id}" ${described}>${label('reject')}</button>
      </details>`,
    );
  }
  const blocked = approvalBlocked(item.status, verdicts);
  return html`${blocked ? html`<p class="meta refusal">${blocked}</p>` : ''}${
    buttons.length > 0 ? html`<div class="actions">${buttons}</div>` : ''
  }`;
}

export interface IntentCall {
  name: string;
  args: Record<string, unknown>;
}

/** The view-only call behind a pressed button, or what the person must fill in first. */
export function intentCall(button: HTMLButtonElement, root: HTMLElement, timeZone: string): IntentCall | string {
  const id = button.dataset.id ?? '';
  const field = <T extends HTMLElement>(prefix: string) => root.querySelector<T>(`#${prefix}-${CSS.escape(id)}`);
  switch (button.dataset.intent) {
    case 'approve':
      return { name: VIEW_TOOLS.approve, args: { id, then: button.dataset.then } };
    case 'publish_now':
      return { name: VIEW_TOOLS.publish_now, args: { id } };
    case 'reject': {
      const reason = field<HTMLTextAreaElement>('reason')?.value.trim() ?? '';
      return { name: VIEW_TOOLS.reject, args: { id, ...(reason ? { reason } : {}) } };
    }
    case 'schedule': {
      const local = parseLocalInput(field<HTMLInputElement>('when')?.value ?? '');
      if (!local) return 'Give the date and time to publish at first.';
      // The time is the workspace's clock, whatever the browser's zone.
      return { name: VIEW_TOOLS.schedule, args: { id, scheduled_for: fromLocal(local, timeZone).toISOString() } };
    }
    case 'move': {
      const day = field<HTMLInputElement>('day')?.value ?? '';
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return 'Pick the new day first.';
      return { name: VIEW_TOOLS.move, args: { id, day } };
    }
    default:
      return 'That button does nothing here.';
  }
}

/** What the view says once the call has answered with the item as stored. */
export function doneMessage(intent: string | undefined, next: ContentResource, timeZone: string): string {
  const at = next.scheduled_for ? plannedFor(new Date(next.scheduled_for), timeZone) : null;
  if (intent === 'reject') return 'Rejected.';
  if (next.status === 'scheduled' && at) return intent === 'move' ? `Moved to ${at}.` : `Scheduled for ${at}.`;
  if (next.status === 'approved')
    return next.publish_queued ? 'Queued: it goes out on the next publishing run.' : 'Approved, not scheduled.';
  return 'Done.';
}
