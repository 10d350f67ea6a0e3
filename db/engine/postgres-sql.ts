import { sql } from 'drizzle-orm';
import type { EngineSql } from './store.ts';

/** The PostgreSQL spelling of what differs between the engines (see EngineSql). JSON columns are jsonb. */
export const postgresSql: EngineSql = {
  true: sql.raw('true'),
  false: sql.raw('false'),
  lockRowsSkipLocked: sql.raw(' for update skip locked'),
  // A bound JSON text is cast; jsonb's ? (holds this string as an element) uses the column's GIN index where it has one.
  jsonArrayHas: (array, value) => sql`(cast(${array} as jsonb) ? cast(${value} as text))`,
  jsonArrayValues: (array) => sql`(select jsonb_array_elements_text(cast(${array} as jsonb)))`,
};
