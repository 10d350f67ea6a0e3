import type { Runtime } from '../context.ts';
import { claimDueDeliveries, type DeliveryOutcome } from './delivery/claim.ts';
import { deliver } from './delivery/deliver.ts';
import { enqueueAllEvents } from './delivery/enqueue.ts';

/**
 * Enqueues new events and makes every attempt due now, waiting for each: the sequential form of the
 * delivery worker that tests drive with a manual clock (the worker overlaps attempts instead).
 */
export async function deliverDue(runtime: Runtime): Promise<DeliveryOutcome[]> {
  const outcomes: DeliveryOutcome[] = [];
  for (;;) {
    enqueueAllEvents(runtime);
    const claims = claimDueDeliveries(runtime, runtime.config.webhooks.concurrency);
    if (claims.length === 0) return outcomes;
    outcomes.push(...(await Promise.all(claims.map((claim) => deliver(runtime, claim)))));
  }
}
