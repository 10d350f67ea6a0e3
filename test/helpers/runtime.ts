import { openDatabase, sqliteOf, type Db } from '../../db/client.ts';
import type { Engine } from '../../db/engine/store.ts';
import { openPostgresDatabase } from '../../db/postgres.ts';
import { closeWhenDone, createTestDatabase, databaseForFile } from './postgres.ts';
import { asyncDb, type Executor } from '../../db/engine/session.ts';
import { sqliteExecutor } from '../../db/engine/sqlite-executor.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { Runtime } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';

export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
/** Where a test runtime's clock starts unless told otherwise. */
export const TEST_START = '2026-03-10T12:00:30.000Z';

export interface TestRuntime extends Runtime {
  clock: ManualClock;
}

/**
 * A fresh in-memory database migrated with the real migrations, a clock that only moves when told,
 * and configuration from `env` (the spec's defaults otherwise).
 */
export async function testRuntime(
  options: { env?: Record<string, string>; start?: string; file?: string } = {},
): Promise<TestRuntime> {
  const clock = new ManualClock(options.start ?? TEST_START);
  // A fixed key, so no test writes a generated key file into the repository's data directory.
  // Warnings and errors only: an access line per request would bury the test output.
  const config = loadConfig({
    PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'warn',
    ...options.env,
  });
  const runtime = await openRuntime({ config, clock, db: await openTestDatabase(options.file) });
  return { ...runtime, clock };
}

/**
 * The engine this run's tests open their databases on: PostgreSQL in the suite's PostgreSQL run
 * (`TEST_ENGINE=postgres`, with `TEST_DATABASE_URL` naming the server), SQLite otherwise.
 */
export const TEST_ENGINE: Engine = process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * A migrated database for a test: a private one (SQLite's `:memory:`, or a copy of the migrated
 * template on PostgreSQL), or the one kept in `file`, which every runtime given that file shares.
 * On PostgreSQL it is closed and dropped when the test (or, opened in a beforeAll, its file) ends.
 */
export async function openTestDatabase(file?: string): Promise<Db> {
  if (TEST_ENGINE === 'sqlite') return openDatabase(file ?? ':memory:');
  const database = file === undefined ? await createTestDatabase() : undefined;
  const db = await openPostgresDatabase(database?.url ?? databaseForFile(file!), { max: 4 });
  closeWhenDone(async () => {
    await db.$store.close();
    await database?.drop();
  });
  return db;
}

export interface CapturedStatement {
  sql: string;
  params: unknown[];
}

/**
 * `db`'s connection behind a handle that records in `captured` every statement run through it (its
 * SQL and parameters), for tests that read a query's plan. Transactions still go through `db`'s store.
 */
export function capturingDb(db: Db, captured: CapturedStatement[]): Db {
  const inner = sqliteExecutor(sqliteOf(db));
  const recorded: Executor = {
    run: (sql, params) => (captured.push({ sql, params }), inner.run(sql, params)),
    all: (sql, params, arrayMode) => (captured.push({ sql, params }), inner.all(sql, params, arrayMode)),
    get: (sql, params, arrayMode) => (captured.push({ sql, params }), inner.get(sql, params, arrayMode)),
  };
  return Object.assign(asyncDb(recorded), { $store: db.$store, $client: sqliteOf(db) });
}
