import { sql } from 'drizzle-orm';
import { preparedStatements, writeTransaction, type Db } from '../../../../db/client.ts';
import { events, webhookJobs, webhooks } from '../../../../db/schema/index.ts';
import type { Runtime } from '../../context.ts';
import { newDeliveryId, recordDeliveryAttempt } from '../delivery-log.ts';
import { EXPIRED_RESPONSE_BODY, EXPIRY_MS } from './policy.ts';

/** A job old enough to be given up: `now - createdAt` (ms) at or past EXPIRY_MS. */
export const isExpired = (createdAt: number, now: number): boolean => now - createdAt >= EXPIRY_MS;

/**
 * Abandons every queued delivery past 72 hours, also those of disabled subscriptions the worker
 * does not send, so their log says so without waiting for a re-enable. A subscription held by a
 * delivery worker is left to it: it abandons them before any attempt. Run by maintenance.
 */
export async function expireStaleDeliveries(runtime: Runtime): Promise<number> {
  const { db, clock } = runtime;
  const now = clock.now();
  const s = statements(db);
  return writeTransaction(db, async () => {
    const stale = await s.stale.all({ before: now.getTime() - EXPIRY_MS, now: now.getTime() });
    let expired = 0;
    for (const job of stale) if (await expireJob(db, job, now)) expired++;
    return expired;
  });
}

/**
 * Gives a queued delivery up, inside the caller's transaction: its job is dead and its log gets one
 * more attempt, `failed` with status code 0 and the response body "expired", never sent. Nothing is
 * written when the job is no longer queued with the attempts read (another process moved it first).
 */
export async function expireJob(
  db: Db,
  job: { jobId: string; webhookId: string; eventId: string; eventType: string; attempts: number },
  now: Date,
): Promise<boolean> {
  if ((await statements(db).expire.run({ id: job.jobId, attempts: job.attempts })).changes === 0) return false;
  await recordDeliveryAttempt(db, newDeliveryId(), {
    webhookId: job.webhookId,
    jobId: job.jobId,
    eventId: job.eventId,
    eventType: job.eventType,
    attempt: job.attempts + 1,
    status: 'failed',
    result: { statusCode: 0, responseBody: EXPIRED_RESPONSE_BODY, durationMs: 0, error: null },
    at: now,
    isTest: false,
  });
  return true;
}

const statements = preparedStatements((db) => ({
  stale: db
    .select({
      jobId: webhookJobs.id,
      webhookId: webhookJobs.webhookId,
      eventId: webhookJobs.eventId,
      eventType: events.type,
      attempts: webhookJobs.attempts,
    })
    .from(webhookJobs)
    .innerJoin(events, sql`${events.id} = ${webhookJobs.eventId}`)
    .innerJoin(webhooks, sql`${webhooks.id} = ${webhookJobs.webhookId}`)
    .where(
      sql`${webhookJobs.state} = 'queued' and ${webhookJobs.createdAt} <= ${sql.placeholder('before')}
        and (${webhooks.leaseExpiresAt} is null or ${webhooks.leaseExpiresAt} <= ${sql.placeholder('now')})`,
    )
    .prepare(),
  expire: db
    .update(webhookJobs)
    .set({ state: 'dead' })
    .where(
      sql`${webhookJobs.id} = ${sql.placeholder('id')} and ${webhookJobs.state} = 'queued'
        and ${webhookJobs.attempts} = ${sql.placeholder('attempts')}`,
    )
    .prepare(),
}));
