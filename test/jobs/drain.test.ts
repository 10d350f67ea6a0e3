import { describe, expect, it } from 'vitest';
import { drain } from '../../src/jobs/drain.ts';
import type { LeasedJob } from '../../src/jobs/leased-worker.ts';
import { testRuntime } from '../helpers/runtime.ts';

/** A job over an in-memory queue of numbers: `process` answers `done <n>`, or throws for the ones in `failing`. */
function queueJob(items: number[], options: { capacity: number; failing?: number[] }) {
  const queue = [...items];
  const seen = { batches: [] as number[][], abandoned: [] as number[] };
  const job: LeasedJob<number, string> = {
    name: 'test queue',
    capacity: options.capacity,
    claim: async (free) => {
      const batch = queue.splice(0, free);
      seen.batches.push(batch);
      return batch;
    },
    process: async (n) => {
      if (options.failing?.includes(n)) throw new Error(`item ${n} broke`);
      return `done ${n}`;
    },
    abandon: async (n) => void seen.abandoned.push(n),
    nextDueAfter: async () => null,
    listen: () => () => {},
  };
  return { job, seen };
}

describe('drain', () => {
  it('claims up to the capacity, works the batch, and claims again until nothing is due', async () => {
    const { job, seen } = queueJob([1, 2, 3, 4, 5], { capacity: 2 });
    expect(await drain(await testRuntime(), job)).toEqual(['done 1', 'done 2', 'done 3', 'done 4', 'done 5']);
    expect(seen.batches).toEqual([[1, 2], [3, 4], [5], []]);
  });

  it('finishes an item whose processing throws with abandon, as the worker does, and goes on', async () => {
    const { job, seen } = queueJob([1, 2, 3], { capacity: 8, failing: [2] });
    expect(await drain(await testRuntime(), job)).toEqual(['done 1', 'abandoned', 'done 3']);
    expect(seen.abandoned).toEqual([2]);
  });
});
