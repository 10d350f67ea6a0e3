import { sql } from 'drizzle-orm';
import type { EngineSql } from './store.ts';

/** The PostgreSQL spelling of what differs between the engines (see EngineSql). JSON columns are `json` (their text kept as written, keys in order); membership casts to jsonb. */
export const postgresSql: EngineSql = {
  true: sql.raw('true'),
  false: sql.raw('false'),
  lockRowsSkipLocked: sql.raw(' for update skip locked'),
  // jsonb's ? holds this string as an element of the array.
  jsonArrayHas: (array, value) => sql`(cast(${array} as jsonb) ? cast(${value} as text))`,
  jsonArrayValues: (array) => sql`(select jsonb_array_elements_text(cast(${array} as jsonb)))`,
  jsonNumberAt: (object, key) => sql`cast(${object} ->> ${sql.raw(`'${key}'`)} as double precision)`,
  jsonText: (json) => sql`cast(${json} as text)`,
  // xid8 has no cast to bigint; its text is the 64-bit number (epoch and xid), which a bigint holds.
  writingTransaction: sql.raw('cast(cast(pg_current_xact_id() as text) as bigint)'),
  // pg_current_snapshot() is the running statement's snapshot. Below the bound, every transaction has
  // ended or runs in another database of the cluster (its backend says so in pg_stat_activity), so the
  // rows below it this statement sees are all there will ever be. Its xmin alone would be the bound
  // without the other databases; an in-progress xid whose backend is not seen (ended since, or hidden
  // from this user) holds the bound as xmin would.
  outboxAfter: (row, cursor) =>
    sql`(${row.xact}, ${row.seq}) > (${cursor.xact}, ${cursor.seq})
      and ${row.xact} < coalesce(
        (select min(cast(cast(x as text) as bigint)) from pg_snapshot_xip(pg_current_snapshot()) x
          where not exists (select 1 from pg_stat_activity a
            where a.datname <> current_database()
              and cast(cast(a.backend_xid as text) as bigint) = cast(cast(x as text) as bigint) % 4294967296)),
        cast(cast(pg_snapshot_xmax(pg_current_snapshot()) as text) as bigint))`,
  outboxPast: (row, cursor) => sql`(${row.xact}, ${row.seq}) > (${cursor.xact}, ${cursor.seq})`,
  outboxOrder: (row) => sql`${row.xact}, ${row.seq}`,
  rowAddress: () => sql.raw('null'),
  atRowAddress: () => sql.raw('true'),
  newestMigrationApplied: sql.raw('select max(created_at) as at from drizzle.__drizzle_migrations'),
};
