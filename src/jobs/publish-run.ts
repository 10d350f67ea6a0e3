import type { Runtime } from '../core/context.ts';
import { claimDuePublishes, nextDueAfter, renewLeases, type Claim } from '../core/publishing/claim.ts';
import type { Connectors } from '../core/publishing/connector.ts';
import { connectorsFor } from '../core/publishing/connectors/index.ts';
import { abandonRun, fanOut, type FanOutResult } from '../core/publishing/fan-out.ts';
import { startLeasedWorker, type LeasedJob, type Worker } from './leased-worker.ts';

/**
 * The publishing run (`PUBLISH_CONCURRENCY` items at once). Leases of items in hand are renewed
 * three times per lease while their platform calls run, so `PUBLISH_LEASE_SECONDS` can stay short:
 * it bounds how long a crashed process's items wait before another takes them.
 */
export function publishingJob(
  runtime: Runtime,
  connectors: Connectors = connectorsFor(runtime),
): LeasedJob<Claim, FanOutResult> {
  return {
    name: 'publishing',
    capacity: runtime.config.publishing.concurrency,
    claim: async (free) => (await claimDuePublishes(runtime, free)).claims,
    process: (claim) => fanOut(runtime, connectors, claim),
    abandon: (claim, error) => abandonRun(runtime, claim, error),
    nextDueAfter: async (now) => nextDueAfter(runtime.db, now),
    renew: {
      everyMs: (runtime.config.publishing.leaseSeconds * 1000) / 3,
      run: async (claims) => renewLeases(runtime, claims),
    },
    listen: (wake) => runtime.wakeups.listen('publishing', wake),
  };
}

/**
 * The publishing run of this process: woken when an item is queued, timed for the next
 * `scheduled_for`, polled once a second as the backstop (see leased-worker.ts).
 */
export function startPublishing(runtime: Runtime, connectors: Connectors = connectorsFor(runtime)): Worker {
  return startLeasedWorker(runtime, publishingJob(runtime, connectors));
}
