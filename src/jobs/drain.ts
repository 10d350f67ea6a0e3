import type { Runtime } from '../core/context.ts';
import { claimItems, workItem, type ABANDONED, type LeasedJob } from './leased-worker.ts';

/**
 * Runs `job` until nothing is due now, one batch at a time: claims as many items as the job's
 * capacity allows, through the worker's own claim path, works each as the worker does, waits for
 * all of them, and claims again. Resolves with the outcomes in the order the items were claimed.
 *
 * This is the worker's pass without its timers: what tests drive with a manual clock, and what a
 * one-shot run would do. Leases are not renewed, so a batch must finish within its lease.
 */
export async function drain<Claim, Outcome>(
  runtime: Runtime,
  job: LeasedJob<Claim, Outcome>,
  stopping: AbortSignal = new AbortController().signal,
): Promise<Array<Outcome | typeof ABANDONED>> {
  const outcomes: Array<Outcome | typeof ABANDONED> = [];
  for (;;) {
    const claims = await claimItems(runtime, job, job.capacity, []);
    if (claims.length === 0) return outcomes;
    outcomes.push(...(await Promise.all(claims.map((claim) => workItem(runtime, job, claim, stopping)))));
  }
}
