import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLeasedWorker, type LeasedJob, type Worker } from '../../src/jobs/leased-worker.ts';
import { testRuntime } from '../helpers/runtime.ts';

describe('leased worker: the timer for the next due item', () => {
  let worker: Worker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  it('an item that comes due while a pass is claiming is still claimed, without waiting for the poll', async () => {
    const runtime = await testRuntime({ env: { SCHEDULER_POLL_SECONDS: '3600' } });
    const due = runtime.clock.now().getTime() + 100;
    let queued = true;
    const processed: number[] = [];
    const job: LeasedJob<number> = {
      name: 'test queue',
      capacity: 1,
      claim: async () => {
        const now = runtime.clock.now().getTime();
        // The claim looks before the item is due; by the time its commit is done the item is due.
        runtime.clock.set(Math.max(now, due + 1));
        if (!queued || now < due) return [];
        queued = false;
        return [due];
      },
      process: async (n) => void processed.push(n),
      abandon: async () => {},
      nextDueAfter: async (now) => (queued && due > now.getTime() ? due : null),
      listen: () => () => {},
    };
    worker = startLeasedWorker(runtime, job);
    await vi.waitFor(() => expect(processed).toEqual([due]), { timeout: 2000, interval: 5 });
  });
});
