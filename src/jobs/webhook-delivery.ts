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
 * How often at most an event written in this process starts a pass. The first event after a quiet
 * spell starts one at once; under a stream of writes (hundreds of requests a second, each recording
 * an event) the events of this many milliseconds share one pass, instead of each paying a pass of
 * its own (the enqueue lock, the cursor, the outbox read and write, the due deliveries).
 */
const EVENT_PASS_INTERVAL_MS = 10;

/** How soon a pass that left events unread past the outbox cursor looks again. */
const EVENTS_LEFT_RETRY_MS = 50;

/** `fn`, called at once when its last call was at least `ms` ago, else once when `ms` have passed since it. */
function atMostEvery(ms: number, fn: () => void): (() => void) & { cancel(): void } {
  let last = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  const call = () => {
    timer = undefined;
    last = performance.now();
    fn();
  };
  const throttled = () => {
    if (timer) return;
    const wait = last + ms - performance.now();
    if (wait <= 0) return call();
    timer = setTimeout(call, wait);
    timer.unref();
  };
  return Object.assign(throttled, { cancel: () => clearTimeout(timer) });
}

/**
 * Webhook delivery (`WEBHOOK_CONCURRENCY` attempts at once): every pass first enqueues new outbox
 * events as delivery jobs, then hands out due jobs of the subscriptions it holds or takes over.
 */
export function webhookDeliveryJob(runtime: Runtime): LeasedJob<DeliveryClaim, DeliveryOutcome> {
  // Whether the last pass left events unread (enqueueAllEvents): the next pass then comes soon.
  let eventsLeft = false;
  return {
    name: 'webhook delivery',
    capacity: runtime.config.webhooks.concurrency,
    claim: async (free) => {
      eventsLeft = await enqueueAllEvents(runtime);
      return claimDueDeliveries(runtime, free);
    },
    process: (claim, stopping) => deliver(runtime, claim, stopping),
    abandon: (claim, error) => abandonDelivery(runtime, claim, error),
    nextDueAfter: async (now) => {
      const due = await nextDeliveryDueAfter(runtime.db, now);
      if (!eventsLeft) return due;
      const soon = now.getTime() + EVENTS_LEFT_RETRY_MS;
      return due === null ? soon : Math.min(due, soon);
    },
    listen: (wake) => {
      const eventWritten = atMostEvery(EVENT_PASS_INTERVAL_MS, wake);
      const stopEvents = onEventRecorded(runtime.db, eventWritten);
      const stopWakeups = runtime.wakeups.listen('webhooks', wake);
      return () => {
        eventWritten.cancel();
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
