import { customType } from 'drizzle-orm/pg-core';

/**
 * An instant as epoch milliseconds in a `bigint`, read back as a Date: what SQLite's
 * `integer({ mode: 'timestamp_ms' })` stores and returns, so raw SQL compares the same numbers on both
 * engines (an int4 would overflow; a `timestamptz` would not compare with the numbers the core binds).
 */
export const epochMs = customType<{ data: Date; driverData: string | number }>({
  dataType: () => 'bigint',
  toDriver: (value) => value.getTime(),
  // node-postgres returns int8 as text, so a value past 2^53 cannot be misread silently.
  fromDriver: (value) => new Date(Number(value)),
});
