import type { Runtime } from '../context.ts';
import { claimDueDeliveries, deliver, fanOutAllEvents, type DeliveryOutcome } from './delivery.ts';

/**
 * Fans out new events and makes every attempt due now, waiting for each: the sequential form of the
 * delivery worker that tests drive with a manual clock (the worker overlaps attempts instead).
 */
export async function deliverDue(runtime: Runtime): Promise<DeliveryOutcome[]> {
  const outcomes: DeliveryOutcome[] = [];
  for (;;) {
    fanOutAllEvents(runtime);
    const claims = claimDueDeliveries(runtime, runtime.config.webhooks.concurrency);
    if (claims.length === 0) return outcomes;
    outcomes.push(...(await Promise.all(claims.map((claim) => deliver(runtime, claim)))));
  }
}
