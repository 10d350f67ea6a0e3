import { Cron } from 'croner';
import { preparedStatements, prepareText } from '../../db/client.ts';
import type { Runtime } from '../core/context.ts';
import { pruneIdempotencyKeys } from '../core/idempotency.ts';
import { sweepOrphanMedia } from '../core/media/orphans.ts';
import { pruneExpiredConnectStates } from '../core/social-accounts/connect-states.ts';
import { liveClientLookup } from '../core/publishing/live-clients.ts';
import { tokenSourceFor } from '../core/social-accounts/token-lifecycle.ts';
import { fillLateUrls } from '../core/publishing/late-urls.ts';
import { refreshExpiringTokens } from '../core/social-accounts/token-lifecycle.ts';
import { pruneRateLimitWindows } from '../core/rate-limits.ts';
import { expireStaleDeliveries } from '../core/webhooks/delivery/expiry.ts';
import { pruneDeliveryHistory } from '../core/webhooks/retention.ts';

export interface MaintenanceReport {
  rateLimitWindows: number;
  idempotencyKeys: number;
  expiredDeliveries: number;
  /** Rows of the webhook delivery log past WEBHOOK_LOG_RETENTION_DAYS. */
  prunedDeliveryLogRows: number;
  /** Finished webhook delivery jobs past WEBHOOK_LOG_RETENTION_DAYS. */
  prunedDeliveryJobs: number;
  /** OAuth connections started and never finished, past their 15 minutes. */
  expiredConnectStates: number;
  /** Live accounts whose access token, expiring within the hour, was refreshed (and refreshes that failed). */
  refreshedTokens: { refreshed: number; failed: number };
  /** Posts published without a public URL (TikTok before moderation) whose URL has now appeared. */
  lateUrls: number;
}

/**
 * Housekeeping every process that serves requests runs: rate-limit windows that have rolled over
 * and idempotency answers past their 24 hours would otherwise pile up forever, queued webhook
 * deliveries past 72 hours are abandoned, OAuth connections never finished are forgotten after
 * their 15 minutes, the webhook delivery history past its retention is pruned (in short batches, so
 * it may take a while and never holds up other writers for long), and live accounts' access tokens
 * that expire within the hour are refreshed.
 * Each step is idempotent, but several processes on one database would repeat each other's work
 * (and refresh one token twice): the scheduled run claims its minute first (runMaintenanceTick).
 * `signal` stops the pruning between two batches.
 */
export async function runMaintenance(runtime: Runtime, signal?: AbortSignal): Promise<MaintenanceReport> {
  const rateLimitWindows = await pruneRateLimitWindows(runtime);
  const idempotencyKeys = await pruneIdempotencyKeys(runtime);
  // Expired first, so deliveries given up now are finished jobs the prune may take once old enough.
  const expiredDeliveries = await expireStaleDeliveries(runtime);
  const pruned = await pruneDeliveryHistory(runtime, signal);
  const expiredConnectStates = await pruneExpiredConnectStates(runtime);
  const refreshedTokens = await refreshExpiringTokens(runtime, (platform) => tokenSourceFor(runtime, platform));
  const lateUrls = await fillLateUrls(runtime, liveClientLookup(runtime));
  return {
    rateLimitWindows,
    idempotencyKeys,
    expiredDeliveries,
    prunedDeliveryLogRows: pruned.logRows,
    prunedDeliveryJobs: pruned.jobs,
    expiredConnectStates,
    refreshedTokens,
    lateUrls,
  };
}

const MINUTE_MS = 60_000;

/**
 * Claims the run of `job` for the tick starting at `tickAt` (ms) across every process on the
 * database: true for the one process whose claim moved the job's row on to this tick, false for
 * the others (and for a tick already run, or one older than the last run). One statement, so two
 * processes claiming at once cannot both win; the same on both engines.
 */
export async function claimJobTick(runtime: Runtime, job: string, tickAt: number): Promise<boolean> {
  return (await statements(runtime.db).claimTick.get({ job, tickAt })) !== undefined;
}

/** The tick of `everyMs` that `now` falls in, as every process's clock names it (ms). */
export const tickOf = (now: Date, everyMs: number): number => Math.floor(now.getTime() / everyMs) * everyMs;

/** Runs maintenance for the tick `now` falls in, unless another process has run it already. Answers whether this one ran it. */
export async function runMaintenanceTick(runtime: Runtime, signal?: AbortSignal): Promise<MaintenanceReport | null> {
  if (!(await claimJobTick(runtime, 'maintenance', tickOf(runtime.clock.now(), MINUTE_MS)))) return null;
  return runMaintenance(runtime, signal);
}

export function startMaintenance(runtime: Runtime): { stop(): void } {
  const stopping = new AbortController();
  // `protect`: a run still pruning when the next minute comes is not started again beside itself.
  // Each minute's run is claimed in job_ticks, so of all the processes on one database one runs it.
  const job = new Cron('0 * * * * *', { protect: true, unref: true }, async () => {
    try {
      await runMaintenanceTick(runtime, stopping.signal);
    } catch (error) {
      runtime.log.error({ err: error }, 'Maintenance failed');
    }
  });
  // Hourly, not with the rest each minute: a scan of the whole media directory is the costly part, and
  // an orphan is only a little disk held a while longer (at most two hours after the crash). Not
  // claimed across processes: each sweeps the media directory it serves from.
  const mediaSweep = new Cron('0 17 * * * *', { protect: true, unref: true }, async () => {
    await sweepMedia(runtime);
  });
  return {
    stop: () => {
      stopping.abort();
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

const statements = preparedStatements((db) => ({
  // A first run inserts the row; a later one moves it on only to a newer tick. `returning` answers a
  // row only when this statement inserted or moved it.
  claimTick: prepareText<{ job: string; tickAt: number }, { job: string }>(
    db,
    `insert into job_ticks (job, tick_at) values (@job, @tickAt)
     on conflict (job) do update set tick_at = excluded.tick_at where job_ticks.tick_at < excluded.tick_at
     returning job`,
  ),
}));
