import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';

/** Stored answers to POSTs sent with an Idempotency-Key, kept 24 hours. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** SHA-256 of the operation name and its canonical input: the same key with another call is refused. */
    fingerprint: text('fingerprint').notNull(),
    /** Null while the first request is still running. */
    responseStatus: integer('response_status'),
    /**
     * The answer's JSON, encrypted like webhook secrets: an answer can carry a secret shown once (a
     * webhook's signing secret, a connect URL's state). Null while the first request is still running.
     */
    responseBodyEncrypted: text('response_body_encrypted'),
    /** Answers stored in clear before bodies were encrypted; replayed until pruned (24 hours), never written. */
    responseBody: text('response_body', { mode: 'json' }).$type<unknown>(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.key] })],
);
