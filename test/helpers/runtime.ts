import { sqliteOf, openDatabase, type Db } from '../../db/client.ts';
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
  const runtime = await openRuntime({ config, clock, db: openDatabase(options.file ?? ':memory:') });
  return { ...runtime, clock };
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
