/**
 * Resending: queueing again, for one webhook, events it was sent before. One attempt's event
 * (resendDelivery) or every event that failed for good in a time range (resendFailedDeliveries).
 */
import { and, asc, eq, gte, lt, max } from 'drizzle-orm';
import { webhookDeliveries, webhookJobs } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../context.ts';
import { fieldError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { enforce, subjectOf } from '../policy.ts';
import { getWebhookInWorkspace } from './operations.ts';
import { judgeDeliveryAction, judgeWebhookAction, queuedEventIds } from './policy.ts';
import { MAX_RESEND_SPAN_DAYS, ResendDeliveryInput, ResendFailedInput, WebhookResendResult } from './schemas.ts';

/** The most events one resend-failed call queues; `has_more` says when the range held more. */
export const MAX_RESEND_PER_CALL = 1000;

const DAY_MS = 86_400_000;

/**
 * A new delivery job of an event already sent once: it starts from attempt 1 with the full retry
 * schedule, and its age (for the 72-hour give-up and for pruning) counts from now, not from the event.
 */
async function queueAgain(ctx: ServiceContext, webhookId: string, eventId: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db
    .insert(webhookJobs)
    .values({
      id: newId(),
      webhookId,
      workspaceId: ctx.workspace.id,
      eventId,
      state: 'queued',
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    })
    .run();
}

/**
 * POST /webhooks/{id}/deliveries/{delivery_id}/resend: queues the attempt's event again for this
 * webhook, delivered under the same event id (receivers that deduplicate on webhook-id see it as the
 * same event). Test deliveries are not resent (Send test makes a new one), nor an event already queued.
 */
export const resendDelivery = defineOperation({
  name: 'resendDelivery',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: ResendDeliveryInput,
  output: WebhookResendResult,
  errors: {
    invalid_state: 'the webhook is disabled, the attempt was a test delivery, or its event is already queued',
  },
  async run(ctx, input) {
    const { db } = ctx;
    const webhook = await getWebhookInWorkspace(db, ctx.workspace.id, input.id);
    const delivery = await db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, webhook.id), eq(webhookDeliveries.id, input.delivery_id)))
      .get();
    if (!delivery) throw notFound('delivery of this webhook');
    const queued = (await queuedEventIds(db, webhook.id)).has(delivery.eventId);
    enforce(
      judgeDeliveryAction(subjectOf(ctx), webhook, { isTest: delivery.isTest, eventId: delivery.eventId, queued }),
    );
    await queueAgain(ctx, webhook.id, delivery.eventId);
    ctx.wake('webhooks');
    return {
      object: 'webhook_resend' as const,
      webhook_id: webhook.id,
      queued: 1,
      events: [{ event_id: delivery.eventId, event_type: delivery.eventType }],
      has_more: false,
    };
  },
});

/**
 * POST /webhooks/{id}/resend-failed: queues again every event whose delivery to this webhook failed
 * for good (a `failed` attempt, test deliveries aside) in [since, until), unless it is queued now or
 * was delivered after that failure. Oldest failure first, at most MAX_RESEND_PER_CALL per call.
 */
export const resendFailedDeliveries = defineOperation({
  name: 'resendFailedDeliveries',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: ResendFailedInput,
  output: WebhookResendResult,
  errors: {
    invalid_state: 'the webhook is disabled',
  },
  async run(ctx, input) {
    const { db } = ctx;
    const webhook = await getWebhookInWorkspace(db, ctx.workspace.id, input.id);
    const until = input.until ?? ctx.clock.now();
    if (input.since.getTime() >= until.getTime())
      throw fieldError('since', 'since must be earlier than until (now when omitted).');
    if (until.getTime() - input.since.getTime() > MAX_RESEND_SPAN_DAYS * DAY_MS) {
      throw fieldError(
        'since',
        `The range is longer than ${MAX_RESEND_SPAN_DAYS} days; resend a shorter range at a time.`,
      );
    }
    enforce(judgeWebhookAction(subjectOf(ctx), webhook, 'resend_failed'));
    const failures = await db
      .select({
        eventId: webhookDeliveries.eventId,
        eventType: webhookDeliveries.eventType,
        at: max(webhookDeliveries.deliveredAt),
      })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.webhookId, webhook.id),
          gte(webhookDeliveries.deliveredAt, input.since),
          lt(webhookDeliveries.deliveredAt, until),
          eq(webhookDeliveries.status, 'failed'),
          eq(webhookDeliveries.isTest, false),
        ),
      )
      // An event's type is one: grouped by it too, as PostgreSQL selects only grouped columns.
      .groupBy(webhookDeliveries.eventId, webhookDeliveries.eventType)
      .orderBy(asc(max(webhookDeliveries.deliveredAt)))
      .all();
    const lastDelivered = new Map(
      (
        await db
          .select({ eventId: webhookDeliveries.eventId, at: max(webhookDeliveries.deliveredAt) })
          .from(webhookDeliveries)
          .where(
            and(
              eq(webhookDeliveries.webhookId, webhook.id),
              gte(webhookDeliveries.deliveredAt, input.since),
              eq(webhookDeliveries.status, 'delivered'),
            ),
          )
          .groupBy(webhookDeliveries.eventId)
          .all()
      ).map((row) => [row.eventId, row.at!.getTime()]),
    );
    const queued = await queuedEventIds(db, webhook.id);
    const due = failures.filter(
      (failure) => !queued.has(failure.eventId) && (lastDelivered.get(failure.eventId) ?? -1) < failure.at!.getTime(),
    );
    const taken = due.slice(0, MAX_RESEND_PER_CALL);
    for (const failure of taken) await queueAgain(ctx, webhook.id, failure.eventId);
    if (taken.length > 0) ctx.wake('webhooks');
    return {
      object: 'webhook_resend' as const,
      webhook_id: webhook.id,
      queued: taken.length,
      events: taken.map((failure) => ({ event_id: failure.eventId, event_type: failure.eventType })),
      has_more: due.length > taken.length,
    };
  },
});
