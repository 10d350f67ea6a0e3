import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { webhookJobs } from '../../../db/schema/index.ts';
import { defineOperation } from '../operation.ts';
import { listEnvelope } from '../pagination.ts';
import {
  accessRefusal,
  allowedActionsSchema,
  subjectOf,
  verdict,
  type PolicySubject,
  type Refusal,
  type Verdict,
} from '../policy.ts';
import {
  getWebhookInWorkspace,
  listWebhookDeliveries,
  listWebhooks,
  reenableWebhook,
  updateWebhook,
} from './operations.ts';
import {
  ListWebhookDeliveriesInput,
  ListWebhooksInput,
  WebhookDeliveryResource,
  WebhookResource as WebhookResourceSchema,
} from './schemas.ts';
import { resendDelivery, resendFailedDeliveries } from './resend.ts';
import { toWebhookResource, type WebhookRow } from './serialize.ts';

/**
 * What an admin does with a webhook: enable or disable it by hand, re-enable one the service
 * stopped after repeated failures, and resend its failed deliveries; and with one delivery, resend it.
 */
export const WEBHOOK_ACTIONS = ['enable', 'disable', 'reenable', 'resend_failed'] as const;
export type WebhookAction = (typeof WEBHOOK_ACTIONS)[number];
export const DELIVERY_ACTIONS = ['resend'] as const;
export type DeliveryAction = (typeof DELIVERY_ACTIONS)[number];

export type WebhookPolicyRow = Pick<WebhookRow, 'isEnabled' | 'autoDisabledAt'>;

const OPERATIONS = {
  enable: () => updateWebhook,
  disable: () => updateWebhook,
  reenable: () => reenableWebhook,
  resend_failed: () => resendFailedDeliveries,
} as const;

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
    () => accessRefusal(subject, OPERATIONS[action]()),
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
    () => accessRefusal(subject, resendDelivery),
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
export function queuedEventIds(db: Db, webhookId: string): Set<string> {
  return new Set(
    db
      .select({ eventId: webhookJobs.eventId })
      .from(webhookJobs)
      .where(and(eq(webhookJobs.webhookId, webhookId), eq(webhookJobs.state, 'queued')))
      .all()
      .map((row) => row.eventId),
  );
}

/**
 * The webhooks with each one's `allowed_actions`: what the dashboard renders its buttons from. No
 * REST route or tool serves it (the contract's resources have no such field).
 */
export const listWebhooksWithActions = defineOperation({
  name: 'listWebhooksWithActions',
  role: 'admin',
  buckets: ['read'],
  scope: 'read',
  input: ListWebhooksInput,
  output: listEnvelope(WebhookResourceSchema.extend({ allowed_actions: allowedActionsSchema(WEBHOOK_ACTIONS) })),
  run(ctx, input) {
    const page = listWebhooks.run(ctx, input);
    const subject = subjectOf(ctx);
    return {
      ...page,
      data: page.data.map((hook) => ({ ...hook, allowed_actions: webhookPolicy(subject, policyRowOf(hook)) })),
    };
  },
});

/** A webhook resource as the policy reads it. */
const policyRowOf = (hook: { is_enabled: boolean; auto_disabled_at: string | null }): WebhookPolicyRow => ({
  isEnabled: hook.is_enabled,
  autoDisabledAt: hook.auto_disabled_at ? new Date(hook.auto_disabled_at) : null,
});

/** One webhook and a page of its delivery log, each with `allowed_actions` (the dashboard's delivery log). */
export const listWebhookDeliveriesWithActions = defineOperation({
  name: 'listWebhookDeliveriesWithActions',
  role: 'admin',
  buckets: ['read'],
  scope: 'read',
  input: ListWebhookDeliveriesInput,
  output: listEnvelope(
    WebhookDeliveryResource.extend({ allowed_actions: allowedActionsSchema(DELIVERY_ACTIONS) }),
  ).extend({
    webhook: WebhookResourceSchema.extend({ allowed_actions: allowedActionsSchema(WEBHOOK_ACTIONS) }),
  }),
  run(ctx, input) {
    const row = getWebhookInWorkspace(ctx.db, ctx.workspace.id, input.id);
    const page = listWebhookDeliveries.run(ctx, input);
    const subject = subjectOf(ctx);
    const queued = queuedEventIds(ctx.db, row.id);
    const webhook = toWebhookResource(row);
    return {
      ...page,
      webhook: { ...webhook, allowed_actions: webhookPolicy(subject, row) },
      data: page.data.map((delivery) => ({
        ...delivery,
        allowed_actions: deliveryPolicy(subject, row, {
          isTest: delivery.event_type === 'webhook.test',
          eventId: delivery.event_id,
          queued: queued.has(delivery.event_id),
        }),
      })),
    };
  },
});
