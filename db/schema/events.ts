import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';

/** The outbox: written in the same transaction as the change that caused the event. */
export const events = sqliteTable(
  'events',
  {
    /**
     * Order of writing; webhook fan-out walks it. The rowid (no AUTOINCREMENT: events are pruned
     * oldest first, so the largest seq is never reused, and a write touches one B-tree less).
     */
    seq: integer('seq').primaryKey(),
    id: text('id').notNull().unique(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    /**
     * The writing transaction's place in commit order where seq alone does not give it (PostgreSQL's
     * transaction id, db.$store.sql.writingTransaction); null on SQLite, whose one writer commits in
     * the order it writes. Fan-out reads the outbox on (xact, seq) (enqueue.ts).
     */
    xact: integer('xact'),
  },
  // Empty on SQLite (xact is null there), so it costs its writes nothing.
  (t) => [
    index('events_commit_order_idx')
      .on(t.xact, t.seq)
      .where(sql`${t.xact} is not null`),
  ],
);
