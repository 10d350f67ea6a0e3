import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../db/engine/store.ts';
import { ABANDONED, workItem, type LeasedJob } from '../../src/jobs/leased-worker.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

/** One claimed item whose work throws: finished with the error, unless the database went away. */
describe('workItem: an item whose work throws', () => {
  let runtime: TestRuntime | undefined;
  afterEach(async () => {
    await runtime?.db.$store.close();
  });

  const jobThrowing = (error: unknown, abandoned: unknown[]): LeasedJob<string, string> => ({
    name: 'test',
    capacity: 1,
    claim: async () => [],
    process: async () => {
      throw error;
    },
    abandon: async (_claim, cause) => abandoned.push(cause),
    nextDueAfter: async () => null,
    listen: () => () => {},
  });

  it('is finished with its error (abandon), so no holder fails it the same way forever', async () => {
    runtime = await testRuntime();
    const abandoned: unknown[] = [];
    const bug = new Error('connector misconfigured');
    expect(await workItem(runtime, jobThrowing(bug, abandoned), 'item', new AbortController().signal)).toBe(ABANDONED);
    expect(abandoned).toEqual([bug]);
  });

  it('is left to its lease when the database went away: taken over and resumed later, not finished as failed', async () => {
    runtime = await testRuntime();
    const abandoned: unknown[] = [];
    const gone = new DatabaseUnavailableError(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    expect(await workItem(runtime, jobThrowing(gone, abandoned), 'item', new AbortController().signal)).toBe(ABANDONED);
    expect(abandoned).toEqual([]);
  });
});
