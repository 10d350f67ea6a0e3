import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { webhookJobs } from '../../../db/schema/index.ts';
import { accessRefusal, verdict, type PolicySubject, type Refusal, type Verdict } from '../policy.ts';
import type { WebhookRow } from './serialize.ts';

/**
 * What an admin does with a webhook: enable or disable it by hand, re-enable one the service
 * stopped after repeated failures, and resend its failed deliveries; and with one delivery, resend it.
 */
export const WEBHOOK_ACTIONS = ['enable', 'disable', 'reenable', 'resend_failed'] as const;
export type WebhookAction = (typeof WEBHOOK_ACTIONS)[number];
export const DELIVERY_ACTIONS = ['resend'] as const;
export type DeliveryAction = (typeof DELIVERY_ACTIONS)[number];

export type WebhookPolicyRow = Pick<WebhookRow, 'isEnabled' | 'autoDisabledAt'>;

/**
 * What every webhook action needs: an admin's role and the write scope, as each operation behind
 * them (updateWebhook, reenableWebhook, resendDelivery, resendFailedDeliveries) declares.
 */
export const WEBHOOK_ACTION_ACCESS = { role: 'admin', scope: 'write' } as const;

const invalid = (reason: string): Refusal => ({ code: 'invalid_state', reason });

/** Resending is for an enabled webhook: a disabled one would only queue what it does not send. */
function enabledForResend(row: WebhookPolicyRow): Refusal | null {
  if (row.isEnabled) return null;
  return invalid(
    row.autoDisabledAt
      ? 'The webhook was disabled after repeated failures; enable it again (is_enabled true) before resending.'
      : 'The webhook is disabled; enable it (is_enabled true) before resending.',
  );
}

function stateRefusal(row: WebhookPolicyRow, action: WebhookAction): Refusal | null {
  switch (action) {
    case 'enable':
      if (row.isEnabled) return invalid('The webhook is already enabled.');
      return row.autoDisabledAt
        ? invalid('The service stopped this webhook after repeated failures: re-enable it, which resumes its queue.')
        : null;
    case 'disable':
      return row.isEnabled ? null : invalid('The webhook is already disabled.');
    case 'reenable':
      return !row.isEnabled && row.autoDisabledAt
        ? null
        : invalid('Only a webhook the service stopped after repeated failures is re-enabled; this one was not.');
    case 'resend_failed':
      return enabledForResend(row);
  }
}

/** The verdict on one action: the plan, the write scope and an admin's role, then the webhook's state. */
export const judgeWebhookAction = (
  subject: PolicySubject,
  row: WebhookPolicyRow,
  action: WebhookAction,
): Verdict<WebhookAction> =>
  verdict(
    action,
    () => accessRefusal(subject, WEBHOOK_ACTION_ACCESS),
    () => stateRefusal(row, action),
  );

/** Every action's verdict for the webhook, in WEBHOOK_ACTIONS order: its `allowed_actions`. */
export const webhookPolicy = (subject: PolicySubject, row: WebhookPolicyRow): Verdict<WebhookAction>[] =>
  WEBHOOK_ACTIONS.map((action) => judgeWebhookAction(subject, row, action));

/** What the delivery policy reads of an attempt: whether it was a test, and whether its event is queued now. */
export interface DeliveryPolicyRow {
  isTest: boolean;
  eventId: string;
  queued: boolean;
}

/**
 * Resending one attempt's event: access, an enabled webhook, not a test delivery (Send test makes a
 * new one), and not an event already queued for it (its next attempt delivers it).
 */
export const judgeDeliveryAction = (
  subject: PolicySubject,
  webhook: WebhookPolicyRow,
  delivery: DeliveryPolicyRow,
  action: DeliveryAction = 'resend',
): Verdict<DeliveryAction> =>
  verdict(
    action,
    () => accessRefusal(subject, WEBHOOK_ACTION_ACCESS),
    () => enabledForResend(webhook),
    () =>
      delivery.isTest ? invalid('Test deliveries are not resent: send a new one with POST /webhooks/{id}/test.') : null,
    () =>
      delivery.queued
        ? invalid(`Event ${delivery.eventId} is already queued for this webhook; its next attempt will deliver it.`)
        : null,
  );

export const deliveryPolicy = (
  subject: PolicySubject,
  webhook: WebhookPolicyRow,
  delivery: DeliveryPolicyRow,
): Verdict<DeliveryAction>[] =>
  DELIVERY_ACTIONS.map((action) => judgeDeliveryAction(subject, webhook, delivery, action));

/** The event ids this webhook has a delivery queued for right now. */
export async function queuedEventIds(db: Db, webhookId: string): Promise<Set<string>> {
  return new Set(
    (
      await db
        .select({ eventId: webhookJobs.eventId })
        .from(webhookJobs)
        .where(and(eq(webhookJobs.webhookId, webhookId), eq(webhookJobs.state, 'queued')))
        .all()
    ).map((row) => row.eventId),
  );
}
