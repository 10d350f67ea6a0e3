import { defineConfig } from 'vitest/config';

/**
 * Tests that measure how long one process waits on another's lock: they run after every other file
 * has finished, alone, so the other suites' servers and subprocesses do not share the two cores with
 * them. Everything else runs file-parallel as usual.
 */
const aloneAtTheEnd = ['test/jobs/webhook-retention.test.ts'];

/** The tests against a PostgreSQL server run only when one is given (its URL, a superuser's). */
const postgresTests = process.env.TEST_DATABASE_URL ? [] : ['test/postgres/**'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [...aloneAtTheEnd, ...postgresTests] },
      },
      { extends: true, test: { name: 'alone', include: aloneAtTheEnd, sequence: { groupOrder: 1 } } },
    ],
  },
});
