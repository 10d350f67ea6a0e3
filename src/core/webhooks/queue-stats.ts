import { sql } from 'drizzle-orm';
import { preparedStatements } from '../../../db/client.ts';
import { prepareSql } from '../../../db/engine/session.ts';
import { webhookJobs } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { deliveriesInHand } from './delivery/lease.ts';

/** The webhook delivery queue at one moment, for monitoring. Ages are in seconds, 0 when nothing waits. */
export interface DeliveryQueueStats {
  /** Jobs of enabled subscriptions whose next attempt is due, not counting this process's attempts out. */
  due: number;
  /** How long the longest-waiting due job has been due. */
  oldestDueAgeSeconds: number;
  /** Queued jobs not due yet (waiting for a retry) or of disabled subscriptions (kept while disabled). */
  waiting: number;
  /**
   * Attempts this process has out. A job stays queued while its attempt is out (the subscription's
   * lease says who sends it), so another process's attempts out are counted as due.
   */
  inFlight: number;
}

/**
 * Both counts walk the partial queue index (webhook_jobs_queue_idx, queued jobs by subscription and
 * due time): the due count only the due end of each enabled subscription's range.
 */
export async function deliveryQueueStats(runtime: Runtime): Promise<DeliveryQueueStats> {
  const now = runtime.clock.now().getTime();
  const s = statements(runtime.db);
  const due = (await s.due.get({ now }))!;
  const queued = (await s.queued.get())!.n;
  const inFlight = deliveriesInHand(runtime.db);
  return {
    due: Math.max(0, due.n - inFlight),
    oldestDueAgeSeconds: due.since === null ? 0 : Math.max(0, (now - due.since) / 1000),
    waiting: queued - due.n,
    inFlight,
  };
}

const statements = preparedStatements((db) => ({
  // CROSS JOIN keeps the subscriptions outermost, so each enabled one's due range is a search of the
  // queue index instead of a scan of every queued job.
  due: prepareSql<{ n: number; since: number | null }, { now: number }>(
    db,
    sql`select count(*) as n, min(j.next_attempt_at) as since from webhooks w cross join webhook_jobs j
     where w.is_enabled = ${db.$store.sql.true} and j.webhook_id = w.id and j.state = 'queued'
       and j.next_attempt_at <= ${sql.placeholder('now')}`,
  ),
  queued: db
    .select({ n: sql<number>`count(*)` })
    .from(webhookJobs)
    .where(sql`${webhookJobs.state} = 'queued'`)
    .prepare(),
}));
