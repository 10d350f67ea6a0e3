import { integer, json, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    responseStatus: integer('response_status'),
    responseBodyEncrypted: text('response_body_encrypted'),
    responseBody: json('response_body').$type<unknown>(),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.key] })],
);
