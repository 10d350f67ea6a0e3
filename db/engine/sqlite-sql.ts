import { sql } from 'drizzle-orm';
import type { EngineSql } from './store.ts';

/** The SQLite spelling of what differs between the engines (see EngineSql). */
export const sqliteSql: EngineSql = {
  true: sql.raw('1'),
  false: sql.raw('0'),
  lockRowsSkipLocked: sql.raw(''),
  jsonArrayHas: (array, value) => sql`exists (select 1 from json_each(${array}) where json_each.value = ${value})`,
  jsonArrayValues: (array) => sql`(select value from json_each(${array}))`,
  jsonNumberAt: (object, key) => sql`json_extract(${object}, ${sql.raw(`'$.${key}'`)})`,
  jsonText: (json) => json,
  writingTransaction: sql.raw('null'),
  outboxAfter: (row, cursor) => sql`${row.seq} > ${cursor.seq}`,
  outboxPast: (row, cursor) => sql`${row.seq} > ${cursor.seq}`,
  outboxOrder: (row) => row.seq,
  rowAddress: (table) => sql.raw(`${table}.rowid`),
  atRowAddress: (table, address) => sql`${sql.raw(`${table}.rowid`)} = ${address}`,
  newestMigrationApplied: sql.raw('select max(created_at) as at from __drizzle_migrations'),
};
