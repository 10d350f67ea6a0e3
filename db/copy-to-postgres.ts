import type Database from 'better-sqlite3';
import { is } from 'drizzle-orm';
import { getTableConfig, PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import * as schema from './schema-pg/index.ts';

/**
 * Copying a SQLite database into a PostgreSQL database migrated to the same schema (db/schema and
 * db/schema-pg name the same tables and columns). The whole copy is one transaction on the target:
 * a run stopped halfway (a crash, a killed process, a bad value) leaves nothing behind, so the
 * operator simply runs it again. Everything in the source is read in one read transaction, a
 * consistent snapshot even while the service still writes (what it writes after is not copied).
 */

/** Rows per INSERT; fewer for wide tables, so a statement stays under PostgreSQL's 65,535 parameters. */
const BATCH_ROWS = 1_000;
const MAX_PARAMETERS = 60_000;

/** Taken for the copy's transaction, so two runs at once do not both copy: the second then finds the target full. */
const COPY_LOCK = 7_346_021_102;

/**
 * Tables a target holds before any user data: the rows the migrations seed (plans, the auth epoch,
 * the fan-out cursor), the shared templates every process seeds when it opens the database, and the
 * schedulers' tick bookkeeping. A target with rows in any other table (a workspace, a user, a key,
 * a rate-limit window from a request served) is not empty: it is refused rather than overwritten.
 * The copy replaces these tables' rows with the source's.
 */
export const SEEDED_TABLES: ReadonlySet<string> = new Set([
  'plans',
  'auth_epoch',
  'webhook_fanout_cursor',
  'templates',
  'job_ticks',
]);

/**
 * Copied after every other table: inserting keys, workspaces and plans moves the auth epoch (a row
 * trigger), so its row is written once they are all in, with the source's version.
 */
const WRITTEN_BY_TRIGGERS = new Set(['auth_epoch']);

export interface TableCopied {
  table: string;
  rows: number;
  ms: number;
}

/** The target holds data already; `tables` names the tables with rows and how many. */
export class TargetNotEmptyError extends Error {
  override readonly name = 'TargetNotEmptyError';
  constructor(readonly tables: { table: string; rows: number }[]) {
    super(
      `The PostgreSQL database is not empty: ${tables.map((t) => `${t.table} (${t.rows} rows)`).join(', ')}. ` +
        'migrate-to-postgres copies into an empty database only (a new database, migrated or not); ' +
        'create one (createdb) and run it again.',
    );
  }
}

/** The copy did not arrive whole; nothing was committed. */
export class CopyMismatchError extends Error {
  override readonly name = 'CopyMismatchError';
}

interface TableShape {
  name: string;
  columns: PgColumn[];
  /** Tables its foreign keys point to (other than itself). */
  references: string[];
}

function tableShapes(): TableShape[] {
  return (Object.values(schema) as unknown[])
    .filter((value): value is PgTable => is(value, PgTable))
    .map((table) => {
      const config = getTableConfig(table);
      const references = config.foreignKeys
        .map((key) => getTableConfig(key.reference().foreignTable).name)
        .filter((name) => name !== config.name);
      // A generated column (social_accounts.is_active) is computed by each database from the others.
      const columns = config.columns.filter((column) => column.generated === undefined);
      return { name: config.name, columns, references: [...new Set(references)] };
    });
}

/**
 * The tables in an order where every table comes after the tables its foreign keys point to (ties
 * by name, so the order is the same every run), the trigger-written ones last.
 */
export function copyOrder(shapes: TableShape[] = tableShapes()): TableShape[] {
  const pending = new Map(shapes.map((shape) => [shape.name, shape]));
  const ordered: TableShape[] = [];
  const placed = new Set<string>();
  while (pending.size > 0) {
    const ready = [...pending.values()]
      .filter((shape) => shape.references.every((name) => placed.has(name) || !pending.has(name)))
      .sort((a, b) => a.name.localeCompare(b.name));
    if (ready.length === 0) throw new Error(`Foreign keys form a cycle among ${[...pending.keys()].join(', ')}`);
    for (const shape of ready) {
      ordered.push(shape);
      placed.add(shape.name);
      pending.delete(shape.name);
    }
  }
  return [
    ...ordered.filter((shape) => !WRITTEN_BY_TRIGGERS.has(shape.name)),
    ...ordered.filter((shape) => WRITTEN_BY_TRIGGERS.has(shape.name)),
  ];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Columns SQLite leaves null that PostgreSQL's core reads: events.xact orders the outbox on
 * PostgreSQL, and an event with none is never fanned out. Every copied event was committed, so 0
 * puts them first in seq order, where the cursor (0, last_seq) finds any not fanned out yet: the
 * rule migration 0004 applies to the events before the column.
 */
const WHEN_NULL: Record<string, Record<string, unknown>> = { events: { xact: 0 } };

/** A SQLite value as the PostgreSQL column takes it: 0/1 to a boolean; JSON text stays text, cast to jsonb by the statement. */
function converter(column: PgColumn, table: string): (value: unknown) => unknown {
  const whenNull = WHEN_NULL[table]?.[column.name];
  if (whenNull !== undefined) return (value) => value ?? whenNull;
  if (column.getSQLType() !== 'boolean') return (value) => value;
  return (value) => {
    if (value === null || value === undefined) return null;
    if (value === 1 || value === 0) return value === 1;
    throw new CopyMismatchError(
      `${table}.${column.name} holds ${JSON.stringify(value)} where a boolean (0 or 1) belongs`,
    );
  };
}

/** Checks the source table has exactly the target's columns, so no value is dropped or made up. */
function checkColumns(source: Database.Database, shape: TableShape): void {
  // table_xinfo lists generated columns too, `hidden` 2 or 3: they are left to the target to compute.
  const sourceColumns = (
    source.prepare(`pragma table_xinfo(${quote(shape.name)})`).all() as { name: string; hidden: number }[]
  )
    .filter((column) => column.hidden === 0)
    .map((column) => column.name);
  if (sourceColumns.length === 0) throw new CopyMismatchError(`The SQLite database has no table ${shape.name}`);
  const targetColumns = shape.columns.map((column) => column.name);
  const missing = targetColumns.filter((name) => !sourceColumns.includes(name));
  const extra = sourceColumns.filter((name) => !targetColumns.includes(name));
  if (missing.length > 0 || extra.length > 0) {
    throw new CopyMismatchError(
      `The SQLite table ${shape.name} differs from PostgreSQL's (${[
        missing.length > 0 ? `missing ${missing.join(', ')}` : '',
        extra.length > 0 ? `extra ${extra.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; ')}): both must be migrated by the same version of the service`,
    );
  }
}

/** Tables in the source the schema does not know: their rows would be lost, so the copy refuses. */
function checkNoUnknownTables(source: Database.Database, known: Set<string>): void {
  const tables = source
    .prepare(
      `select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' and name <> '__drizzle_migrations'`,
    )
    .all() as { name: string }[];
  const unknown = tables.map((table) => table.name).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new CopyMismatchError(
      `The SQLite database has tables PostgreSQL's schema lacks (${unknown.join(', ')}): is it from a newer version of the service?`,
    );
  }
}

async function copyTable(
  source: Database.Database,
  client: pg.PoolClient,
  shape: TableShape,
  batchRows: number,
): Promise<number> {
  const names = shape.columns.map((column) => column.name);
  const casts = shape.columns.map((column) => `::${column.getSQLType()}`);
  const converters = shape.columns.map((column) => converter(column, shape.name));
  const perBatch = Math.max(1, Math.min(batchRows, Math.floor(MAX_PARAMETERS / names.length)));
  const insertInto = `insert into ${quote(shape.name)} (${names.map(quote).join(', ')}) values `;
  const select = source.prepare(`select ${names.map(quote).join(', ')} from ${quote(shape.name)}`).raw(true);
  let copied = 0;
  let batch: unknown[][] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const values: unknown[] = [];
    const tuples = batch.map((row) => {
      const placeholders = row.map((value, i) => {
        values.push(converters[i]!(value));
        return `$${values.length}${casts[i]}`;
      });
      return `(${placeholders.join(', ')})`;
    });
    try {
      await client.query({ text: insertInto + tuples.join(', '), values });
    } catch (error) {
      throw new Error(
        `Copying ${shape.name} failed in the rows after the first ${copied}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    copied += batch.length;
    batch = [];
  };
  for (const row of select.iterate() as IterableIterator<unknown[]>) {
    batch.push(row);
    if (batch.length >= perBatch) await flush();
  }
  await flush();
  return copied;
}

/**
 * Moves each identity's sequence past what the source used: its largest value, or more for a table
 * with AUTOINCREMENT whose last rows were deleted (events pruned past the webhook fan-out cursor:
 * a reused seq would be one the fan-out thinks it has passed), read from sqlite_sequence.
 */
async function moveSequences(source: Database.Database, client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ table: string; column: string }>(
    `select table_name as "table", column_name as "column" from information_schema.columns
      where table_schema = current_schema() and (is_identity = 'YES' or column_default like 'nextval(%')`,
  );
  const hasSequences =
    source.prepare(`select 1 from sqlite_master where type = 'table' and name = 'sqlite_sequence'`).get() !== undefined;
  const usedBySource = hasSequences ? source.prepare('select seq from sqlite_sequence where name = ?') : null;
  for (const { table, column } of rows) {
    const used = Number((usedBySource?.get(table) as { seq: number } | undefined)?.seq ?? 0);
    await client.query({
      text: `select setval(pg_get_serial_sequence($1, $2), greatest(coalesce(max(${quote(column)}), 0), $3::bigint) + 1, false) from ${quote(table)}`,
      values: [quote(table), column, used],
    });
  }
}

async function countRows(client: pg.PoolClient, table: string): Promise<number> {
  const { rows } = await client.query<{ n: string | number }>(`select count(*) as n from ${quote(table)}`);
  return Number(rows[0]!.n);
}

/**
 * Copies every table of `source` (a SQLite connection of its own: it runs a read transaction here)
 * into the migrated database behind `pool`, in one transaction: refuses a target with user data
 * (TargetNotEmptyError), empties the seeded tables, copies in foreign-key order `batchRows` rows a
 * statement, moves the identities' sequences past the source's, checks every table's row count
 * against the source's (CopyMismatchError) and only then commits. `onTable` hears each table as
 * it is copied.
 */
export async function copySqliteToPostgres(
  source: Database.Database,
  pool: pg.Pool,
  options: { batchRows?: number; onTable?: (copied: TableCopied) => void } = {},
): Promise<TableCopied[]> {
  const order = copyOrder();
  checkNoUnknownTables(source, new Set(order.map((shape) => shape.name)));
  for (const shape of order) checkColumns(source, shape);
  const client = await pool.connect();
  let broken: Error | undefined;
  source.exec('begin');
  try {
    await client.query('begin');
    try {
      await client.query({ text: 'select pg_advisory_xact_lock($1)', values: [COPY_LOCK] });
      const full: { table: string; rows: number }[] = [];
      for (const shape of order) {
        if (SEEDED_TABLES.has(shape.name)) continue;
        const rows = await countRows(client, shape.name);
        if (rows > 0) full.push({ table: shape.name, rows });
      }
      if (full.length > 0) throw new TargetNotEmptyError(full);
      await client.query(`truncate ${order.map((shape) => quote(shape.name)).join(', ')}`);
      const copied: TableCopied[] = [];
      for (const shape of order) {
        const began = Date.now();
        const rows = await copyTable(source, client, shape, options.batchRows ?? BATCH_ROWS);
        const table = { table: shape.name, rows, ms: Date.now() - began };
        copied.push(table);
        options.onTable?.(table);
      }
      await moveSequences(source, client);
      const mismatches: string[] = [];
      for (const shape of order) {
        const inSource = Number(
          (source.prepare(`select count(*) as n from ${quote(shape.name)}`).get() as { n: number }).n,
        );
        const inTarget = await countRows(client, shape.name);
        if (inSource !== inTarget) mismatches.push(`${shape.name}: ${inSource} in SQLite, ${inTarget} in PostgreSQL`);
      }
      if (mismatches.length > 0) {
        throw new CopyMismatchError(`The row counts differ, nothing was committed: ${mismatches.join('; ')}`);
      }
      await client.query('commit');
      return copied;
    } catch (error) {
      await client.query('rollback').catch((rollbackFailed: unknown) => {
        broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed));
      });
      throw error;
    }
  } finally {
    source.exec('rollback');
    client.release(broken);
  }
}
