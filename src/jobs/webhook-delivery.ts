import type { Runtime } from '../core/context.ts';
import { onEventRecorded } from '../core/events/record-event.ts';
import {
  claimDueDeliveries,
  nextDeliveryDueAfter,
  type DeliveryClaim,
  type DeliveryOutcome,
} from '../core/webhooks/delivery/claim.ts';
import { abandonDelivery, deliver } from '../core/webhooks/delivery/deliver.ts';
import { enqueueAllEvents } from '../core/webhooks/delivery/enqueue.ts';
import { releaseHeldDeliveries } from '../core/webhooks/delivery/lease.ts';
import { startLeasedWorker, type LeasedJob, type Worker } from './leased-worker.ts';

/**
 * Webhook delivery (`WEBHOOK_CONCURRENCY` attempts at once): every pass first enqueues new outbox
 * events as delivery jobs, then hands out due jobs of the subscriptions it holds or takes over.
 */
export function webhookDeliveryJob(runtime: Runtime): LeasedJob<DeliveryClaim, DeliveryOutcome> {
  return {
    name: 'webhook delivery',
    capacity: runtime.config.webhooks.concurrency,
    claim: async (free) => {
      await enqueueAllEvents(runtime);
      return claimDueDeliveries(runtime, free);
    },
    process: (claim, stopping) => deliver(runtime, claim, stopping),
    abandon: (claim, error) => abandonDelivery(runtime, claim, error),
    nextDueAfter: async (now) => nextDeliveryDueAfter(runtime.db, now),
    listen: (wake) => {
      const stopEvents = onEventRecorded(runtime.db, wake);
      const stopWakeups = runtime.wakeups.listen('webhooks', wake);
      return () => {
        stopEvents();
        stopWakeups();
      };
    },
  };
}

/**
 * Webhook delivery in this process: woken by every event this process writes and by re-enabled
 * subscriptions, timed for the next retry, polled once a second for events written by other
 * processes (see leased-worker.ts).
 */
export function startWebhookDelivery(runtime: Runtime): Worker {
  const worker = startLeasedWorker(runtime, webhookDeliveryJob(runtime));
  return {
    async stop(deadline) {
      const left = await worker.stop(deadline);
      // The subscriptions this process held are given back, so a restart resumes them at once.
      await releaseHeldDeliveries(runtime);
      return left;
    },
  };
}
