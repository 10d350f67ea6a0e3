import { defineConfig } from 'vitest/config';

/**
 * Tests that measure how long one process waits on another's lock: they run after every other file
 * has finished, alone, so the other suites' servers and subprocesses do not share the two cores with
 * them. Everything else runs file-parallel as usual.
 */
const aloneAtTheEnd = ['test/jobs/webhook-retention.test.ts'];

/**
 * Tests of the PostgreSQL engine itself (test/postgres) need a server: `TEST_DATABASE_URL` names
 * one (`.ci/run` starts a throwaway cluster; tools/pg/cluster.sh starts one by hand). Without it the
 * project is not defined rather than its tests skipped: there is nothing for them to run against,
 * and `npm test` says so in one line.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) console.log('PostgreSQL tests (test/postgres) not run: TEST_DATABASE_URL is not set.');
/**
 * The whole suite again with every database on PostgreSQL (project suite-postgres), asked for with
 * TEST_POSTGRES_SUITE=1 beside TEST_DATABASE_URL (.ci/run sets both). Not by default: it doubles the
 * run's time, and test/postgres (the engine's own tests) already runs whenever a server is given.
 */
const postgresSuite = postgresUrl !== undefined && process.env.TEST_POSTGRES_SUITE === '1';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [...aloneAtTheEnd, 'test/postgres/**'] },
      },
      { extends: true, test: { name: 'alone', include: aloneAtTheEnd, sequence: { groupOrder: 1 } } },
      ...(postgresSuite
        ? [
            {
              // The whole suite again, every database on PostgreSQL (test/helpers/runtime.ts).
              extends: true as const,
              test: {
                name: 'suite-postgres',
                include: ['test/**/*.test.ts'],
                exclude: ['test/postgres/**'],
                env: { TEST_ENGINE: 'postgres' },
                globalSetup: ['test/setup/postgres-template.ts'],
                setupFiles: ['test/setup/postgres-suite.ts'],
              },
            },
          ]
        : []),
      ...(postgresUrl
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['test/postgres/**/*.test.ts'],
                globalSetup: ['test/setup/postgres-template.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
