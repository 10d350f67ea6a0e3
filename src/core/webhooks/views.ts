import { defineOperation } from '../operation.ts';
import { listEnvelope } from '../pagination.ts';
import { allowedActionsSchema, subjectOf } from '../policy.ts';
import { getWebhookInWorkspace, listWebhookDeliveries, listWebhooks } from './operations.ts';
import {
  DELIVERY_ACTIONS,
  deliveryPolicy,
  queuedEventIds,
  WEBHOOK_ACTIONS,
  webhookPolicy,
  type WebhookPolicyRow,
} from './policy.ts';
import {
  ListWebhookDeliveriesInput,
  ListWebhooksInput,
  WebhookDeliveryResource,
  WebhookResource as WebhookResourceSchema,
} from './schemas.ts';
import { toWebhookResource } from './serialize.ts';

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
  async run(ctx, input) {
    const page = await listWebhooks.run(ctx, input);
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
  async run(ctx, input) {
    const row = await getWebhookInWorkspace(ctx.db, ctx.workspace.id, input.id);
    const page = await listWebhookDeliveries.run(ctx, input);
    const subject = subjectOf(ctx);
    const queued = await queuedEventIds(ctx.db, row.id);
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
