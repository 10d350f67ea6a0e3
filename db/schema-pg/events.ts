import { sql } from 'drizzle-orm';
import { bigint, index, json, pgTable, text } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';

export const events = pgTable(
  'events',
  {
    /**
     * Order of writing, assigned by the database as SQLite's rowid is. bigint: at a thousand events a
     * second int4 lasts under a month. Identities commit out of order across transactions, so a reader
     * of "seq > cursor" needs more than this column on PostgreSQL: see xact.
     */
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    id: text('id').notNull().unique(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    data: json('data').$type<Record<string, unknown>>().notNull(),
    createdAt: epochMs('created_at').notNull(),
    /** pg_current_xact_id() of the writing transaction (xid8, which fits a bigint): fan-out reads on (xact, seq). */
    xact: bigint('xact', { mode: 'number' }),
  },
  (t) => [
    index('events_commit_order_idx')
      .on(t.xact, t.seq)
      .where(sql`${t.xact} is not null`),
  ],
);
