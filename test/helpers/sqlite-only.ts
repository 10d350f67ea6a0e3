import { describe, it } from 'vitest';
import { TEST_ENGINE } from './runtime.ts';

/**
 * For tests of what only SQLite has (its query plans, pragmas, file modes, online backup, one
 * writer's ordering): they run on SQLite and are reported as skipped in the PostgreSQL run, never
 * left out silently. Their names say "SQLite" (test/architecture/sqlite-only-names.test.ts checks it).
 */
export const onSqliteOnly = {
  it: it.skipIf(TEST_ENGINE !== 'sqlite'),
  describe: describe.skipIf(TEST_ENGINE !== 'sqlite'),
};
