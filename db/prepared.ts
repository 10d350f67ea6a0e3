import type Database from 'better-sqlite3';
import { Column, is, NoopLogger, Param, Placeholder, SQL } from 'drizzle-orm';
import { PreparedQuery } from 'drizzle-orm/better-sqlite3';

type Bind = (values: Record<string, unknown>) => unknown;
type Decoder = { mapFromDriverValue(value: unknown): unknown };

/** What drizzle keeps on its prepared query; internal to drizzle, so every field is checked before use. */
interface DrizzlePrepared {
  stmt: Database.Statement;
  query: { sql: string; params: unknown[] };
  fields?: Array<{ path: string[]; field: unknown }>;
  customResultMapper?: unknown;
  logger?: unknown;
}

/**
 * drizzle's prepared query, run the same way with the work it repeats on every call done once.
 * Each call, drizzle's `run`/`get`/`all` checked every parameter's class (`is`, a walk up the prototype chain)
 * to find the placeholders, and every selected field's class to find its decoder, and set the
 * statement's raw mode again for every `get`: measured in the publishing run (about 15 statements
 * per item), that was about a fifth of its main thread, more than SQLite spent on the reads. Here
 * the binding of each parameter and the decoder of each column are worked out once, when the
 * statement is prepared, and the statement stays in raw mode; values are bound and decoded exactly as drizzle does (a placeholder as
 * given, a column's placeholder through the column's encoder, a NULL read as null, anything else
 * through the field's decoder). A query of another shape (a relational query's own mapper, a join
 * that nests its fields by table) or with a logger is left to drizzle.
 */
export function withFastExecution<T>(query: T): T {
  if (!is(query, PreparedQuery)) return query;
  const { stmt, query: built, fields, customResultMapper, logger } = query as unknown as DrizzlePrepared;
  // A logger (a test capturing the statements) hears every call from drizzle, as before.
  if (customResultMapper || !is(logger, NoopLogger) || !built || !Array.isArray(built.params)) return query;
  const binds: Bind[] = [];
  for (const param of built.params) {
    const bind = binding(param);
    if (!bind) return query;
    binds.push(bind);
  }
  const bindAll = (values: Record<string, unknown> = {}): unknown[] => {
    const bound = new Array<unknown>(binds.length);
    for (let i = 0; i < binds.length; i++) bound[i] = binds[i]!(values);
    return bound;
  };
  const fast = Object.create(query as object) as Record<string, unknown>;
  fast.run = (values?: Record<string, unknown>) => stmt.run(bindAll(values));
  if (!stmt.reader) return fast as T;
  if (!fields) return query;
  const keys: string[] = [];
  const decoders: Decoder[] = [];
  for (const { path, field } of fields) {
    const decoder = decoderOf(field);
    if (path.length !== 1 || !decoder) return query;
    keys.push(path[0]!);
    decoders.push(decoder);
  }
  // drizzle's own statement, put in raw mode once (drizzle sets it on every get; run ignores it). Not a
  // second statement of the same text: with one, BEGIN IMMEDIATE in the publishing benchmark failed
  // with SQLITE_BUSY now and then, beside the WAL checkpointer (cause not found; the one statement never did).
  const rows = stmt.raw(true);
  const decode = (row: unknown[]): Record<string, unknown> => {
    const result: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const value = row[i];
      result[keys[i]!] = value === null ? null : decoders[i]!.mapFromDriverValue(value);
    }
    return result;
  };
  fast.run = (values?: Record<string, unknown>) => rows.run(bindAll(values));
  fast.get = (values?: Record<string, unknown>) => {
    const row = rows.get(bindAll(values)) as unknown[] | undefined;
    return row === undefined ? undefined : decode(row);
  };
  fast.all = (values?: Record<string, unknown>) => (rows.all(bindAll(values)) as unknown[][]).map(decode);
  fast.values = (values?: Record<string, unknown>) => rows.all(bindAll(values));
  return fast as T;
}

/** How drizzle's fillPlaceholders fills one parameter, decided once; null for a parameter it would not take. */
function binding(param: unknown): Bind | null {
  if (is(param, Placeholder)) return valueOf(param.name, (value) => value);
  if (is(param, Param)) {
    if (!is(param.value, Placeholder)) return () => param;
    const encoder = param.encoder as { mapToDriverValue(value: unknown): unknown };
    return valueOf(param.value.name, (value) => encoder.mapToDriverValue(value));
  }
  return () => param;
}

const valueOf =
  (name: string, map: (value: unknown) => unknown): Bind =>
  (values) => {
    if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`);
    return map(values[name]);
  };

/** The decoder drizzle's mapResultRow uses for a selected field. */
function decoderOf(field: unknown): Decoder | null {
  if (is(field, Column)) return field as unknown as Decoder;
  // `decoder` is drizzle's internal field, as mapResultRow reads it.
  if (is(field, SQL)) return (field as unknown as { decoder: Decoder }).decoder;
  if (is(field, SQL.Aliased)) return (field.sql as unknown as { decoder: Decoder }).decoder;
  return null;
}
