import { Cron } from 'croner';
import type { Runtime } from '../core/context.ts';
import { pruneIdempotencyKeys } from '../core/idempotency.ts';
import { sweepOrphanMedia } from '../core/media/orphans.ts';
import { pruneRateLimitWindows } from '../core/rate-limits.ts';
import { expireStaleDeliveries } from '../core/webhooks/delivery.ts';

/**
 * Housekeeping every process that serves requests runs: rate-limit windows that have rolled over
 * and idempotency answers past their 24 hours would otherwise pile up forever, and queued webhook
 * deliveries past 72 hours are abandoned. Each step is idempotent, so several processes on one
 * database may all run it.
 */
export function runMaintenance(runtime: Runtime): {
  rateLimitWindows: number;
  idempotencyKeys: number;
  expiredDeliveries: number;
} {
  return {
    rateLimitWindows: pruneRateLimitWindows(runtime),
    idempotencyKeys: pruneIdempotencyKeys(runtime),
    expiredDeliveries: expireStaleDeliveries(runtime),
  };
}

export function startMaintenance(runtime: Runtime): { stop(): void } {
  const job = new Cron('0 * * * * *', { protect: true, unref: true }, () => {
    try {
      runMaintenance(runtime);
    } catch (error) {
      runtime.log.error({ err: error }, 'Maintenance failed');
    }
  });
  // Hourly, not with the rest each minute: a scan of the whole media directory is the costly part, and
  // an orphan is only a little disk held a while longer (at most two hours after the crash).
  const mediaSweep = new Cron('0 17 * * * *', { protect: true, unref: true }, async () => {
    await sweepMedia(runtime);
  });
  return {
    stop: () => {
      job.stop();
      mediaSweep.stop();
    },
  };
}

/** Media files left without a row by a crash (orphans.ts); a failure is logged and retried next hour. */
export async function sweepMedia(runtime: Runtime): Promise<number> {
  try {
    const removed = await sweepOrphanMedia(runtime);
    if (removed > 0) runtime.log.info({ files: removed }, `Removed ${removed} media file(s) that no media asset names`);
    return removed;
  } catch (error) {
    runtime.log.error({ err: error }, 'Sweeping orphan media files failed');
    return 0;
  }
}
