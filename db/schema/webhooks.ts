import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';

/** A subscription: where to send which events, and the signing secret (encrypted at rest). */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** Subscribed event names; empty means every event, current and future. */
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    isEnabled: integer('is_enabled', { mode: 'boolean' }).notNull(),
    autoDisabledAt: integer('auto_disabled_at', { mode: 'timestamp_ms' }),
    /** AES-256-GCM ciphertext of the `whsec_` secret: base64 of iv (12 bytes) + tag (16) + ciphertext. */
    secretCiphertext: text('secret_ciphertext').notNull(),
    /** The last outbox seq when the subscription was made: earlier events are never sent to it. */
    startAfterSeq: integer('start_after_seq').notNull(),
    /**
     * The delivery worker holding this subscription's queue: one process at a time reads and sends
     * its due deliveries, so a single delivery needs no claim of its own. Renewed at every commit
     * that records an attempt; a holder that dies is replaced once it runs out.
     */
    leaseToken: text('lease_token'),
    leaseExpiresAt: integer('lease_expires_at', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('webhooks_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id)],
);

export const WEBHOOK_JOB_STATES = ['queued', 'delivered', 'dead'] as const;
export type WebhookJobState = (typeof WEBHOOK_JOB_STATES)[number];

/**
 * One event to one subscription: the durable unit of delivery. Queued until it is delivered or dead
 * (dead-lettered); a failed attempt leaves it queued with its next attempt's time. It stays queued
 * while an attempt is out: the subscription's lease (on `webhooks`) says who may send it.
 */
export const webhookJobs = sqliteTable(
  'webhook_jobs',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').notNull(),
    eventId: text('event_id').notNull(),
    state: text('state', { enum: WEBHOOK_JOB_STATES }).notNull(),
    /** Attempts made so far. */
    attempts: integer('attempts').notNull(),
    nextAttemptAt: integer('next_attempt_at', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    // The delivery queue: waiting jobs by due time (oldest first within a subscription on re-enable).
    // Each subscription's queue in due order: the claim takes from the subscriptions with work due,
    // never walking past a busy one's backlog.
    index('webhook_jobs_queue_idx')
      .on(t.webhookId, t.nextAttemptAt, t.id)
      .where(sql`${t.state} = 'queued'`),
    // For the cascade when a subscription is deleted, and for pruning its finished jobs by age (the
    // event's time), walked from a cursor on (created_at, id). Without the state, a job's moves leave
    // it untouched.
    index('webhook_jobs_webhook_created_idx').on(t.webhookId, t.createdAt, t.id),
  ],
);

export const DELIVERY_STATUSES = ['delivered', 'failed', 'pending_retry'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The delivery log: one row per attempt, each with its own `whd_` id. */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    /** Null for the synthetic `webhook.test` attempts. */
    jobId: text('job_id'),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    attempt: integer('attempt').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    /** 0 when no HTTP response came. */
    statusCode: integer('status_code').notNull(),
    responseBody: text('response_body'),
    durationMs: integer('duration_ms').notNull(),
    /** When the attempt was made. */
    deliveredAt: integer('delivered_at', { mode: 'timestamp_ms' }).notNull(),
    /** Test deliveries never count towards auto-disable. */
    isTest: integer('is_test', { mode: 'boolean' }).notNull(),
  },
  (t) => [index('webhook_deliveries_webhook_time_idx').on(t.webhookId, t.deliveredAt, t.id)],
);

/** How far enqueueing has read the events outbox (one row; the table keeps the name it was created with). */
export const webhookEnqueueCursor = sqliteTable('webhook_fanout_cursor', {
  id: integer('id').primaryKey(),
  lastSeq: integer('last_seq').notNull(),
  /** The xact of the event at last_seq (events.xact): the cursor is on (xact, seq); 0 on SQLite. */
  lastXact: integer('last_xact').notNull().default(0),
});
