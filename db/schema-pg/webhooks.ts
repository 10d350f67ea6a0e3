import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { DELIVERY_STATUSES, WEBHOOK_JOB_STATES } from '../schema/webhooks.ts';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';

export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: json('events').$type<string[]>().notNull(),
    isEnabled: boolean('is_enabled').notNull(),
    autoDisabledAt: epochMs('auto_disabled_at'),
    secretCiphertext: text('secret_ciphertext').notNull(),
    // An events.seq, bigint as that is.
    startAfterSeq: bigint('start_after_seq', { mode: 'number' }).notNull(),
    leaseToken: text('lease_token'),
    leaseExpiresAt: epochMs('lease_expires_at'),
    createdAt: epochMs('created_at').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
  },
  (t) => [index('webhooks_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id)],
);

export const webhookJobs = pgTable(
  'webhook_jobs',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').notNull(),
    eventId: text('event_id').notNull(),
    state: text('state', { enum: WEBHOOK_JOB_STATES }).notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: epochMs('next_attempt_at').notNull(),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [
    index('webhook_jobs_queue_idx')
      .on(t.webhookId, t.nextAttemptAt, t.id)
      .where(sql`${t.state} = 'queued'`),
    index('webhook_jobs_webhook_created_idx').on(t.webhookId, t.createdAt, t.id),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    jobId: text('job_id'),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    attempt: integer('attempt').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    statusCode: integer('status_code').notNull(),
    responseBody: text('response_body'),
    durationMs: integer('duration_ms').notNull(),
    deliveredAt: epochMs('delivered_at').notNull(),
    isTest: boolean('is_test').notNull(),
  },
  (t) => [index('webhook_deliveries_webhook_time_idx').on(t.webhookId, t.deliveredAt, t.id)],
);

/** One row (id 1, made by the baseline migration): how far enqueueing has read the outbox. */
export const webhookEnqueueCursor = pgTable('webhook_fanout_cursor', {
  id: integer('id').primaryKey().default(1),
  lastSeq: bigint('last_seq', { mode: 'number' }).notNull(),
  lastXact: bigint('last_xact', { mode: 'number' }).notNull().default(0),
});
