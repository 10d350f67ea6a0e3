import type { Runtime } from '../core/context.ts';
import { onEventRecorded } from '../core/events/record-event.ts';
import { claimDueDeliveries, nextDeliveryDueAfter, type DeliveryClaim } from '../core/webhooks/delivery/claim.ts';
import { abandonDelivery, deliver } from '../core/webhooks/delivery/deliver.ts';
import { enqueueAllEvents } from '../core/webhooks/delivery/enqueue.ts';
import { releaseHeldDeliveries } from '../core/webhooks/delivery/lease.ts';
import { startLeasedWorker, type Worker } from './leased-worker.ts';

/**
 * Webhook delivery in this process (`WEBHOOK_CONCURRENCY` attempts at once): every pass first
 * enqueues new outbox events as delivery jobs, then hands out due jobs of the subscriptions it holds
 * or takes over. Woken by every event this process writes and by re-enabled subscriptions, timed
 * for the next retry, polled once a second for events written by other processes (see
 * leased-worker.ts).
 */
export function startWebhookDelivery(runtime: Runtime): Worker {
  const worker = startLeasedWorker<DeliveryClaim>(runtime, {
    name: 'webhook delivery',
    capacity: runtime.config.webhooks.concurrency,
    claim: (free) => {
      enqueueAllEvents(runtime);
      return claimDueDeliveries(runtime, free);
    },
    process: (claim, stopping) => deliver(runtime, claim, stopping),
    abandon: (claim, error) => abandonDelivery(runtime, claim, error),
    nextDueAfter: (now) => nextDeliveryDueAfter(runtime.db, now),
    listen: (wake) => {
      const stopEvents = onEventRecorded(runtime.db, wake);
      const stopWakeups = runtime.wakeups.listen('webhooks', wake);
      return () => {
        stopEvents();
        stopWakeups();
      };
    },
  });
  return {
    async stop(deadline) {
      const left = await worker.stop(deadline);
      // The subscriptions this process held are given back, so a restart resumes them at once.
      releaseHeldDeliveries(runtime);
      return left;
    },
  };
}
