import Database from 'better-sqlite3';
import { getTableColumns, getTableName, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareSql, type AsyncDb, type PreparedSql } from './engine/session.ts';
export { prepareText } from './engine/session.ts';
import { SqliteStore } from './engine/sqlite-store.ts';
import type { Store } from './engine/store.ts';
import { SEEDED_PLANS } from './plans.ts';
import * as schema from './schema/index.ts';

/** The query builder core uses, on the store its statements run in (db/engine/store.ts), on either engine. */
export type Db = AsyncDb & { readonly $store: Store };

/** A database on SQLite: `$client` is the connection itself, for what only SQLite has (its online backup, the checkpointer). */
export type SqliteDb = Db & { readonly $client: Database.Database };

/** `db`'s SQLite connection, for what only SQLite has; an error naming `what` on PostgreSQL. */
export function sqliteOf(db: Db, what = 'this'): Database.Database {
  if (!('$client' in db)) throw new Error(`${what} is for SQLite only; this database is on ${db.$store.engine}`);
  return (db as SqliteDb).$client;
}

/** Where the service keeps its data: a PostgreSQL URL when one is set, else the SQLite file. */
export interface DatabaseTarget {
  databaseFile: string;
  databaseUrl: string | null;
  /** Connections the PostgreSQL pool may hold at once. */
  databasePoolMax?: number;
}

/** Opens, migrates and seeds the configured database, on whichever engine it names. */
export async function openConfiguredDatabase(target: DatabaseTarget): Promise<Db> {
  if (target.databaseUrl === null) return openDatabase(target.databaseFile);
  const { openPostgresDatabase } = await import('./postgres.ts');
  return openPostgresDatabase(target.databaseUrl, { max: target.databasePoolMax });
}

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Each engine's migrations, as this build ships them. */
export const MIGRATION_FOLDERS: Record<Store['engine'], string> = {
  sqlite: migrationsFolder,
  postgres: join(dirname(fileURLToPath(import.meta.url)), 'migrations-pg'),
};

/**
 * Opens (and creates) the database, applies the pragmas every connection needs, runs pending
 * migrations and seeds the plans. `:memory:` gives a private database, as tests use.
 */
export function openDatabase(filename: string): SqliteDb {
  if (filename !== ':memory:') keepToOwner(filename);
  const sqlite = new Database(filename);
  sqlite.pragma('journal_mode = WAL');
  // WAL + NORMAL is durable across process crashes; only an OS crash can drop the last commits.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // Group commits run each piece of work in a savepoint (core/batch.ts): a page the transaction had
  // already changed is copied to the savepoint's statement journal before it is changed again, and past
  // 64 KiB SQLite spills that journal to a temporary file. A batch of publishing runs wrote it page by
  // page (a 3,000-item fan-out: 137k pwrite calls, 49k with the journal kept in memory). Temporary
  // tables, indices and sorts are then kept in memory too.
  sqlite.pragma('temp_store = MEMORY');
  sqlite.pragma('foreign_keys = ON');
  sqlite.function('fold_case', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? foldCase(text) : text,
  );
  const seeding = drizzle({ client: sqlite, schema });
  // Several processes may start on one file at once. drizzle's own migrator reads the applied
  // migrations before it takes the write lock, so two starting processes could both apply one;
  // this does the same bookkeeping (drizzle's table and hashes) inside one IMMEDIATE transaction.
  sqlite
    .transaction(() => {
      applyMigrations(sqlite);
      for (const plan of SEEDED_PLANS) {
        seeding.insert(schema.plans).values(plan).onConflictDoUpdate({ target: schema.plans.name, set: plan }).run();
      }
    })
    .immediate();
  const store = new SqliteStore(sqlite);
  return Object.assign(store.db, { $store: store, $client: sqlite });
}

/**
 * Text as a case-insensitive search compares it: Unicode lower case (SQLite's lower() folds ASCII
 * only), after NFC so a composed and a decomposed "é" are one. Registered as the SQL function
 * fold_case on every connection, so a query folds both sides alike.
 */
export const foldCase = (text: string): string => text.normalize('NFC').toLowerCase();

/** The files SQLite keeps beside a database in WAL mode, and the rollback journal a backup's copy uses. */
const COMPANION_SUFFIXES = ['-wal', '-shm', '-journal'];

/**
 * The database holds every workspace's key hashes, sessions and encrypted secrets: only the
 * service's own user may read it. SQLite creates 0644 by default, and gives the -wal, -shm and
 * -journal files it makes the mode of the database file; so the file is made (or, from an earlier
 * version, brought back to) 0600 before SQLite opens it, and its companions already there too. A
 * directory made here is 0700; an existing one is left as the operator set it. A file this user
 * does not own keeps its mode (the operator's choice; SQLite then opens it as before).
 */
function keepToOwner(filename: string): void {
  mkdirSync(dirname(filename), { recursive: true, mode: 0o700 });
  const fd = openSync(filename, 'a', 0o600);
  try {
    ownerOnly(() => fchmodSync(fd, 0o600));
  } finally {
    closeSync(fd);
  }
  for (const suffix of COMPANION_SUFFIXES) ownerOnly(() => chmodSync(`${filename}${suffix}`, 0o600));
}

/** Runs a chmod that may find no file (ENOENT) or a file of another user (EPERM): both leave it as it is. */
function ownerOnly(chmod: () => void): void {
  try {
    chmod();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EPERM') throw error;
  }
}

/**
 * Runs `work` in a transaction of its own that takes the write lock up front, or inside the unit
 * already running (a nested call joins it, with no savepoint: each statement costs), so a failure
 * inside must abort the outermost transaction: let it propagate, never catch it and go on writing.
 * Every read-then-write takes the lock up front: on SQLite a deferred transaction that reads first
 * cannot upgrade once another process has committed, and fails at once with SQLITE_BUSY.
 */
export function writeTransaction<T>(db: Db, work: () => Promise<T> | T): Promise<T> {
  return db.$store.transaction(work);
}

/**
 * Runs `work` in a savepoint of the running unit (or in a transaction of its own outside one):
 * when `work` throws, its writes roll back and the rest of the unit goes on.
 */
export async function savepoint<T>(db: Db, work: () => Promise<T> | T): Promise<T> {
  return db.$store.savepoint(work);
}

/**
 * Statements built once per database. drizzle's query builder costs far more than the database
 * itself on the hot paths (measured on SQLite: ~100 µs to build a three-table join, ~5 µs to run
 * it prepared), so per-request queries are built with `sql.placeholder` and prepared here. They
 * run wherever the caller is: inside a unit, they join it.
 */
export function preparedStatements<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let statements = cache.get(db);
    if (!statements) {
      statements = build(db);
      cache.set(db, statements);
    }
    return statements;
  };
}

/** A row for insertRow: any column may hold SerializedJson (only JSON columns should). */
type InsertableRow<T extends SQLiteTable> = { [K in keyof T['$inferInsert']]: T['$inferInsert'][K] | SerializedJson };

const insertsByTable = new WeakMap<Db, Map<SQLiteTable, TableInsert>>();

/**
 * A JSON column's value serialised already (somewhere cheaper, such as a worker thread): insertRow
 * stores its text as it is instead of encoding it again.
 */
export class SerializedJson {
  constructor(readonly text: string) {}
}

/**
 * An INSERT of one row into `table`, every column bound, each value put through its own column's
 * encoder (JSON, timestamps, booleans) as drizzle would. For the inserts made thousands of times a
 * second (content items, outbox events): drizzle's prepared insert spent more filling its
 * placeholders than SQLite spent on the row (measured on campaign generation: 39 µs a content row,
 * against 15 µs for the raw statement). A column left out of `row` (undefined) or null is stored as
 * NULL; defaults are not applied. An integer primary key is never bound: the engine assigns it (a
 * rowid on SQLite, an identity on PostgreSQL).
 */
export async function insertRow<T extends SQLiteTable>(db: Db, table: T, row: InsertableRow<T>): Promise<void> {
  await insertsOf(db, table).run(row as Record<string, unknown>);
}

/** As insertRow, for many rows of one table in order, as one promise (PreparedSql.runEach). */
export async function insertRows<T extends SQLiteTable>(
  db: Db,
  table: T,
  rows: readonly InsertableRow<T>[],
): Promise<void> {
  await insertsOf(db, table).runEach(rows as readonly Record<string, unknown>[]);
}

interface TableInsert {
  run(row: Record<string, unknown>): Promise<unknown>;
  runEach(rows: readonly Record<string, unknown>[]): Promise<number>;
}

function insertsOf(db: Db, table: SQLiteTable): TableInsert {
  let inserts = insertsByTable.get(db);
  if (!inserts) insertsByTable.set(db, (inserts = new Map()));
  let insert = inserts.get(table);
  if (!insert) {
    const columns = Object.entries(getTableColumns(table)).filter(
      ([, column]) => !(column.primary && column.columnType === 'SQLiteInteger'),
    );
    const statement: PreparedSql<never> = prepareSql(
      db,
      sql
        .raw(
          `insert into "${getTableName(table)}" (${columns.map(([, column]) => `"${column.name}"`).join(', ')}) values (`,
        )
        .append(
          sql.join(
            columns.map((_, i) => sql.placeholder(String(i))),
            sql.raw(', '),
          ),
        )
        .append(sql.raw(')')),
    );
    // One row's values, in `values` (reused by a single insert: they are bound before it returns).
    const valuesOf = (
      input: Record<string, unknown>,
      values: Record<string, unknown> = {},
    ): Record<string, unknown> => {
      for (let i = 0; i < columns.length; i++) {
        const [key, column] = columns[i]!;
        const value = input[key];
        values[i] =
          value === undefined || value === null
            ? null
            : value instanceof SerializedJson
              ? value.text
              : column.mapToDriverValue(value);
      }
      return values;
    };
    const reused: Record<string, unknown> = {};
    insert = {
      run: (input) => statement.run(valuesOf(input, reused)),
      runEach: (rows) => statement.runEach(rows.map((row) => valuesOf(row))),
    };
    inserts.set(table, insert);
  }
  return insert;
}

/** A cheap liveness probe used by /healthz. */
export async function pingDatabase(db: Db): Promise<boolean> {
  return (await db.get<{ ok: number }>(sql`select 1 as ok`))?.ok === 1;
}

const newestMigrationKnown = new Map<Store['engine'], number>();

/**
 * Whether the database has every migration this build ships (a newer build's later ones may be
 * there too: an older process still serving during a rolling upgrade is ready). A process applies
 * its own at start-up, so this is false only for a database changed under it (restored from an
 * older backup, or another database behind the same address).
 */
export async function migrationsApplied(db: Db): Promise<boolean> {
  const engine = db.$store.engine;
  let known = newestMigrationKnown.get(engine);
  if (known === undefined) {
    known = Math.max(...readMigrationFiles({ migrationsFolder: MIGRATION_FOLDERS[engine] }).map((m) => m.folderMillis));
    newestMigrationKnown.set(engine, known);
  }
  const applied = await db.get<{ at: number | null }>(db.$store.sql.newestMigrationApplied);
  return applied?.at != null && Number(applied.at) >= known;
}

function applyMigrations(sqlite: Database.Database): void {
  sqlite.exec(
    'CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)',
  );
  const last = sqlite.prepare('SELECT max(created_at) AS at FROM __drizzle_migrations').get() as { at: number | null };
  const record = sqlite.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)');
  for (const migration of readMigrationFiles({ migrationsFolder })) {
    if (last.at !== null && Number(last.at) >= migration.folderMillis) continue;
    for (const statement of migration.sql) if (statement.trim()) sqlite.exec(statement);
    record.run(migration.hash, migration.folderMillis);
  }
}
