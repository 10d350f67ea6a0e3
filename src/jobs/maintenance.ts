import { Cron } from 'croner';
import type { Runtime } from '../core/context.ts';
import { pruneIdempotencyKeys } from '../core/idempotency.ts';
import { pruneRateLimitWindows } from '../core/rate-limits.ts';
import { expireStaleDeliveries } from '../core/webhooks/delivery/expiry.ts';

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
  return { stop: () => job.stop() };
}
