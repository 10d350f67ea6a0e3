import { sql } from 'drizzle-orm';
import type { EngineSql } from './store.ts';

/** The SQLite spelling of what differs between the engines (see EngineSql). */
export const sqliteSql: EngineSql = {
  true: sql.raw('1'),
  false: sql.raw('0'),
  lockRowsSkipLocked: sql.raw(''),
  jsonArrayHas: (array, value) => sql`exists (select 1 from json_each(${array}) where json_each.value = ${value})`,
  jsonArrayValues: (array) => sql`(select value from json_each(${array}))`,
};
