import { sql } from 'drizzle-orm';
import { preparedStatements } from '../../../db/client.ts';
import { webhookJobs, webhooks } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';

/** The webhook delivery queue at one moment, for monitoring. Ages are in seconds, 0 when nothing waits. */
export interface DeliveryQueueStats {
  /** Jobs of enabled subscriptions whose next attempt is due and that nobody holds. */
  due: number;
  /** How long the longest-waiting due job has been due. */
  oldestDueAgeSeconds: number;
  /** Queued jobs not due yet (waiting for a retry) or of disabled subscriptions (kept while disabled). */
  waiting: number;
  /** Attempts held by a delivery worker, in this process or another. */
  inFlight: number;
}

/**
 * Each count walks one partial index (webhook_jobs_due_idx for queued jobs, webhook_jobs_lease_idx
 * for held ones); the due count looks up each due job's subscription, and due jobs are few while the
 * workers keep up.
 */
export function deliveryQueueStats(runtime: Runtime): DeliveryQueueStats {
  const now = runtime.clock.now().getTime();
  const s = statements(runtime.db);
  const due = s.due.get({ now })!;
  const queued = s.queued.get()!.n;
  return {
    due: due.n,
    oldestDueAgeSeconds: due.since === null ? 0 : Math.max(0, (now - due.since) / 1000),
    waiting: queued - due.n,
    inFlight: s.inFlight.get()!.n,
  };
}

const statements = preparedStatements((db) => ({
  due: db
    .select({ n: sql<number>`count(*)`, since: sql<number | null>`min(${webhookJobs.nextAttemptAt})` })
    .from(webhookJobs)
    .innerJoin(webhooks, sql`${webhooks.id} = ${webhookJobs.webhookId}`)
    .where(sql`${webhookJobs.state} = 'queued' and ${webhookJobs.nextAttemptAt} <= ${sql.placeholder('now')} and ${webhooks.isEnabled} = 1`)
    .prepare(),
  queued: db.select({ n: sql<number>`count(*)` }).from(webhookJobs).where(sql`${webhookJobs.state} = 'queued'`).prepare(),
  inFlight: db.select({ n: sql<number>`count(*)` }).from(webhookJobs).where(sql`${webhookJobs.state} = 'delivering'`).prepare(),
}));
