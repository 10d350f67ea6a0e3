import { and, count, desc, eq, max } from 'drizzle-orm';
import { savepoint, type Db } from '../../../db/client.ts';
import { events, webhookDeliveries, webhooks } from '../../../db/schema/index.ts';
import { inNextCommit } from '../batch.ts';
import type { ServiceContext } from '../context.ts';
import { fieldError, notFound, ServiceError } from '../errors.ts';
import { prefixedId } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { enforce, subjectOf } from '../policy.ts';
import { afterCursor, deletedResource, listEnvelope, toPage, type ListEnvelope } from '../pagination.ts';
import { resumeDeliveries } from './delivery/claim.ts';
import { newDeliveryId, recordDeliveryAttempt, toDeliveryResource } from './delivery-log.ts';
import { envelopeBody, signedHeaders, type OutboxEvent } from './envelope.ts';
import { judgeWebhookAction } from './policy.ts';
import {
  CreateWebhookInput,
  ListWebhookDeliveriesInput,
  ListWebhooksInput,
  UpdateWebhookInput,
  WebhookDeliveryResource,
  WebhookIdInput,
  WebhookResource as WebhookResourceSchema,
  WebhookTestResult,
  WebhookWithSecret,
} from './schemas.ts';
import { decryptSecret, encryptSecret } from '../secrets.ts';
import { toWebhookResource, type WebhookResource, type WebhookRow } from './serialize.ts';
import { checkWebhookUrl, isDelivered, newSigningSecret, postWebhook } from './transport.ts';

/**
 * Subscriptions per workspace. The list is one unpaginated page and every event is enqueued for
 * each subscription, so the set is kept small.
 */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

/** The text of the synthetic `webhook.test` event. */
export const TEST_EVENT_MESSAGE = 'This is a test delivery of the webhook.test event; no content changed.';

/** What POST /webhooks/{id}/test answers: `status_code` 0 when no HTTP response came. */
export interface TestDeliveryResult {
  delivered: boolean;
  status_code: number;
  duration_ms: number;
}

/** Fetch-or-throw, always scoped to the workspace: another workspace's webhook is simply not found. */
export async function getWebhookInWorkspace(db: Db, workspaceId: string, id: string): Promise<WebhookRow> {
  const row = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.workspaceId, workspaceId), eq(webhooks.id, id)))
    .get();
  if (!row) throw notFound('webhook');
  return row;
}

/** The SSRF guard (only plain public unicast addresses) as a field error on `url`. Waits on DNS. */
async function assertDeliverableUrl(ctx: ServiceContext, url: string): Promise<void> {
  const refusal = await checkWebhookUrl(url, { allowPrivateUrls: ctx.config.webhooks.allowPrivateUrls });
  if (refusal !== null) throw fieldError('url', refusal.replace(/\.$/, ''));
}

async function assertRoomForAnother(db: Db, workspaceId: string): Promise<void> {
  const existing = (await db.select({ n: count() }).from(webhooks).where(eq(webhooks.workspaceId, workspaceId)).get())!
    .n;
  if (existing >= MAX_WEBHOOKS_PER_WORKSPACE) {
    throw new ServiceError(
      'quota_exceeded',
      `A workspace can have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks and this one has ${existing}; ` +
        'delete one you no longer need (DELETE /api/v1/webhooks/{id}), or subscribe an existing one to more events.',
    );
  }
}

/** The last event written so far: a new subscription is sent only what comes after it. */
const lastEventSeq = async (db: Db): Promise<number> =>
  (
    await db
      .select({ seq: max(events.seq) })
      .from(events)
      .get()
  )?.seq ?? 0;

/** GET /webhooks: the full set, newest first, in one page; `limit` and `cursor` are ignored. */
export const listWebhooks = defineOperation({
  name: 'listWebhooks',
  // Reading them too is an admin's, as on the dashboard: the URLs often carry a receiver's token,
  // and the log holds the receivers' answers. API keys (no role) keep full access.
  role: 'admin',
  buckets: ['read'],
  scope: 'read',
  input: ListWebhooksInput,
  output: listEnvelope(WebhookResourceSchema),
  async run({ db, workspace }): Promise<ListEnvelope<WebhookResource>> {
    const rows = await db
      .select()
      .from(webhooks)
      .where(eq(webhooks.workspaceId, workspace.id))
      .orderBy(desc(webhooks.createdAt), desc(webhooks.id))
      .all();
    return { object: 'list', data: rows.map((row) => toWebhookResource(row)), has_more: false, next_cursor: null };
  },
});

export const getWebhook = defineOperation({
  name: 'getWebhook',
  role: 'admin',
  buckets: ['read'],
  scope: 'read',
  input: WebhookIdInput,
  output: WebhookResourceSchema,
  async run({ db, workspace }, input) {
    return toWebhookResource(await getWebhookInWorkspace(db, workspace.id, input.id));
  },
});

/**
 * POST /webhooks. The URL check waits on DNS, so the subscription is written in the group commit
 * after it. `start_after_seq` is read in that same transaction: every event committed before the
 * subscription exists is never sent to it, every later one is.
 */
export const createWebhook = defineOperation({
  name: 'createWebhook',
  awaitsNetwork: true,
  // Webhooks and accounts are an admin's (the dashboard's roles); API keys keep full access.
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: CreateWebhookInput,
  output: WebhookWithSecret,
  errors: {
    quota_exceeded: 'the workspace has as many webhooks as its plan allows',
  },
  async run(ctx, input): Promise<WebhookResource> {
    const { db } = ctx;
    await assertRoomForAnother(db, ctx.workspace.id);
    await assertDeliverableUrl(ctx, input.url);
    const secret = newSigningSecret();
    const secretCiphertext = encryptSecret(ctx.config, secret);
    return inNextCommit(db, async () =>
      savepoint(db, async () => {
        await assertRoomForAnother(db, ctx.workspace.id);
        const now = ctx.clock.now();
        const row = await db
          .insert(webhooks)
          .values({
            id: prefixedId('whk'),
            workspaceId: ctx.workspace.id,
            url: input.url,
            events: input.events,
            isEnabled: true,
            autoDisabledAt: null,
            secretCiphertext,
            startAfterSeq: await lastEventSeq(db),
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .get();
        return toWebhookResource(row, secret);
      }),
    );
  },
});

/**
 * PATCH /webhooks/{id}: url, events, is_enabled. A new URL is checked (DNS) and the change written
 * in the next group commit; without one the change is written at once. `is_enabled: true` clears
 * auto_disabled_at and wakes the delivery worker, which resumes the queue oldest first.
 */
export const updateWebhook = defineOperation({
  name: 'updateWebhook',
  awaitsNetwork: true,
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: UpdateWebhookInput,
  output: WebhookResourceSchema,
  errors: {
    no_updates: 'the call changes no field',
  },
  async run(ctx, input): Promise<WebhookResource> {
    const { id, ...fields } = input;
    if (Object.values(fields).every((value) => value === undefined)) {
      throw new ServiceError(
        'no_updates',
        'The body has no updatable field. Send at least one of url, events, is_enabled.',
      );
    }
    const { db } = ctx;
    // An unknown id answers not_found before any DNS lookup is made for it.
    await getWebhookInWorkspace(db, ctx.workspace.id, id);
    const apply = async () =>
      savepoint(db, async () => {
        // Looked up again: the webhook may have been deleted while the URL was being checked.
        const row = await getWebhookInWorkspace(db, ctx.workspace.id, id);
        const enabling = fields.is_enabled === true;
        const next = await db
          .update(webhooks)
          .set({
            url: fields.url,
            events: fields.events,
            isEnabled: fields.is_enabled,
            autoDisabledAt: enabling ? null : undefined,
            updatedAt: ctx.clock.now(),
          })
          .where(eq(webhooks.id, row.id))
          .returning()
          .get();
        // Deleted since the lookup by another transaction (PostgreSQL reads each statement afresh).
        if (!next) throw notFound('webhook');
        if (enabling && !row.isEnabled) {
          await resumeDeliveries(db, row.id, ctx.clock.now());
          ctx.wake('webhooks');
        }
        return toWebhookResource(next);
      });
    if (fields.url === undefined) return apply();
    await assertDeliverableUrl(ctx, fields.url);
    return inNextCommit(db, apply);
  },
});

/**
 * Re-enabling a webhook the service stopped after repeated failures (the dashboard's Re-enable):
 * what `PATCH is_enabled=true` does, refused unless the webhook was auto-disabled (webhooks/policy.ts).
 * No REST route of its own: the contract's PATCH already re-enables.
 */
export const reenableWebhook = defineOperation({
  name: 'reenableWebhook',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: WebhookIdInput,
  output: WebhookResourceSchema,
  errors: {
    invalid_state: 'the webhook was not disabled after repeated failures',
  },
  async run(ctx, input): Promise<WebhookResource> {
    const row = await getWebhookInWorkspace(ctx.db, ctx.workspace.id, input.id);
    enforce(judgeWebhookAction(subjectOf(ctx), row, 'reenable'));
    return Promise.resolve(updateWebhook.run(ctx, { id: input.id, is_enabled: true }));
  },
});

/** DELETE /webhooks/{id}: the subscription, its queued deliveries and its log go with it (cascade). */
export const deleteWebhook = defineOperation({
  name: 'deleteWebhook',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: WebhookIdInput,
  output: deletedResource('webhook'),
  async run({ db, workspace }, input) {
    const row = await getWebhookInWorkspace(db, workspace.id, input.id);
    await db.delete(webhooks).where(eq(webhooks.id, row.id)).run();
    return { id: row.id, object: 'webhook' as const, deleted: true as const };
  },
});

/**
 * POST /webhooks/{id}/rotate: a new signing secret replaces the old at once. Every attempt is signed
 * with the secret stored when it is made, so nothing is signed with the old one after this commits.
 */
export const rotateWebhookSecret = defineOperation({
  name: 'rotateWebhookSecret',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: WebhookIdInput,
  output: WebhookWithSecret,
  async run(ctx, input) {
    const { db } = ctx;
    const row = await getWebhookInWorkspace(db, ctx.workspace.id, input.id);
    const secret = newSigningSecret();
    const next = await db
      .update(webhooks)
      .set({ secretCiphertext: encryptSecret(ctx.config, secret), updatedAt: ctx.clock.now() })
      .where(eq(webhooks.id, row.id))
      .returning()
      .get();
    return toWebhookResource(next, secret);
  },
});

/**
 * POST /webhooks/{id}/test: one synchronous attempt of a synthetic `webhook.test` event, also while
 * the webhook is disabled, signed with the current secret, logged, never retried. The event is not
 * written to the outbox, so no other subscription sees it, and it never counts towards auto-disable.
 */
export const testWebhook = defineOperation({
  name: 'testWebhook',
  awaitsNetwork: true,
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: WebhookIdInput,
  output: WebhookTestResult,
  async run(ctx, input): Promise<TestDeliveryResult> {
    const { db } = ctx;
    const row = await getWebhookInWorkspace(db, ctx.workspace.id, input.id);
    const secret = decryptSecret(ctx.config, row.secretCiphertext);
    const at = ctx.clock.now();
    const event: OutboxEvent = {
      id: prefixedId('evt'),
      type: 'webhook.test',
      workspaceId: ctx.workspace.id,
      data: JSON.stringify({ webhook_id: row.id, message: TEST_EVENT_MESSAGE }),
      createdAt: at,
    };
    const deliveryId = newDeliveryId();
    const body = envelopeBody(event, deliveryId, 1);
    const result = await postWebhook(row.url, body, signedHeaders(secret, event.id, body, at), {
      timeoutMs: ctx.config.webhooks.timeoutMs,
      allowPrivateUrls: ctx.config.webhooks.allowPrivateUrls,
    });
    const delivered = isDelivered(result);
    await inNextCommit(db, async () =>
      savepoint(db, async () => {
        // Deleted while the attempt was out: its log went with it, and so does this row.
        const stillThere = await db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.id, row.id)).get();
        if (!stillThere) return;
        await recordDeliveryAttempt(db, deliveryId, {
          webhookId: row.id,
          jobId: null,
          eventId: event.id,
          eventType: event.type,
          attempt: 1,
          status: delivered ? 'delivered' : 'failed',
          result,
          at,
          isTest: true,
        });
      }),
    );
    return { delivered, status_code: result.statusCode, duration_ms: Math.round(result.durationMs) };
  },
});

/**
 * GET /webhooks/{id}/deliveries: the log, one row per attempt, most recent first, paged like every
 * list (limit 1–100, default 25) with the cursor on (delivered_at, id).
 */
export const listWebhookDeliveries = defineOperation({
  name: 'listWebhookDeliveries',
  role: 'admin',
  buckets: ['read'],
  scope: 'read',
  input: ListWebhookDeliveriesInput,
  output: listEnvelope(WebhookDeliveryResource),
  async run({ db, workspace, answerBudget }, input) {
    const webhook = await getWebhookInWorkspace(db, workspace.id, input.id);
    const rows = await db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.webhookId, webhook.id),
          input.status ? eq(webhookDeliveries.status, input.status) : undefined,
          ...afterCursor(input.cursor, webhookDeliveries.deliveredAt, webhookDeliveries.id),
        ),
      )
      .orderBy(desc(webhookDeliveries.deliveredAt), desc(webhookDeliveries.id))
      .limit(input.limit + 1)
      .all();
    return toPage(rows, input.limit, (r) => ({ createdAt: r.deliveredAt, id: r.id }), toDeliveryResource, answerBudget);
  },
});
