import { Cron } from 'croner';
import { savepoint } from '../../db/client.ts';
import { inNextCommit } from '../core/batch.ts';
import type { Runtime } from '../core/context.ts';
import { claimDuePublishes, nextDueAfter, renewLeases, type Claim } from '../core/publishing/claim.ts';
import type { Connectors } from '../core/publishing/connector.ts';
import { connectorsFor } from '../core/publishing/connectors/index.ts';
import { abandonRun, fanOut } from '../core/publishing/fan-out.ts';

/** Timers only wake the run; a timer further out than this is re-armed, so a changed queue is seen. */
const MAX_TIMER_MS = 60_000;

export interface PublishingScheduler {
  /** Stops claiming, then waits for the items in hand to finish. */
  stop(): Promise<void>;
}

/**
 * The publishing run of this process. A pass claims as many due items as there are free slots
 * (`PUBLISH_CONCURRENCY`) and fans each out; nothing waits for a poll interval:
 * - a wake-up from the core (an item was queued) starts a pass on the next turn of the event loop;
 * - a timer is armed for the earliest future `scheduled_for`;
 * - a finished item frees a slot and starts a pass;
 * - croner runs a pass every second as the backstop: it catches work queued by other processes on
 *   the same database, buckets that refilled, and leases that ran out (also reclaimed at start-up).
 * Leases of items in hand are renewed while their platform calls run, so `PUBLISH_LEASE_SECONDS`
 * can stay short: it bounds how long a crashed process's items wait before another takes them.
 * Passes never overlap; claims are leased rows, so any number of processes may run this.
 */
export function startPublishing(runtime: Runtime, connectors: Connectors = connectorsFor(runtime)): PublishingScheduler {
  const capacity = runtime.config.publishing.concurrency;
  const inHand = new Map<Promise<unknown>, Claim>();
  let passQueued = false;
  let passRunning = false;
  let passAgain = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let currentPass: Promise<void> = Promise.resolve();

  const schedulePass = () => {
    if (stopped) return;
    // One pass at a time (each decides how many slots are free); a wake-up during one runs another after.
    if (passRunning) passAgain = true;
    if (passQueued || passRunning) return;
    passQueued = true;
    setImmediate(() => {
      currentPass = pass();
    });
  };

  const pass = async () => {
    passQueued = false;
    if (stopped) return;
    const free = capacity - inHand.size;
    passRunning = true;
    try {
      // Claims join the group commit of the fan-outs' writes instead of committing on their own.
      const { claims } = await inNextCommit(runtime.db, () => savepoint(runtime.db, () => claimDuePublishes(runtime, free)));
      for (const claim of claims) {
        const work = fanOut(runtime, connectors, claim)
          .catch((error: unknown) => {
            console.error(`Publishing ${claim.contentId} failed; finishing it with the error:`, error);
            return abandonRun(runtime, claim, error);
          })
          .catch((error: unknown) => console.error(`Finishing ${claim.contentId} failed too; its lease will be reclaimed:`, error))
          .finally(() => {
            inHand.delete(work);
            schedulePass();
          });
        inHand.set(work, claim);
      }
      armTimer();
    } catch (error) {
      console.error('Publishing pass failed:', error);
    } finally {
      passRunning = false;
      if (passAgain) {
        passAgain = false;
        schedulePass();
      }
    }
  };

  const armTimer = () => {
    clearTimeout(timer);
    const now = runtime.clock.now().getTime();
    const next = nextDueAfter(runtime.db, new Date(now));
    if (next === null) return;
    timer = setTimeout(schedulePass, Math.min(next - now, MAX_TIMER_MS));
    timer.unref();
  };

  // Renewed three times per lease, so one late renewal never lets a live holder's lease run out.
  const renewal = setInterval(() => {
    try {
      if (inHand.size > 0) renewLeases(runtime, inHand.values());
    } catch (error) {
      console.error('Renewing publishing leases failed:', error);
    }
  }, (runtime.config.publishing.leaseSeconds * 1000) / 3);
  renewal.unref();

  const backstop = new Cron('* * * * * *', { protect: true, unref: true }, schedulePass);
  const stopListening = runtime.wakeups.listen('publishing', schedulePass);
  schedulePass();

  return {
    async stop() {
      stopped = true;
      backstop.stop();
      stopListening();
      clearTimeout(timer);
      await currentPass;
      await Promise.all(inHand.keys());
      clearInterval(renewal);
    },
  };
}
