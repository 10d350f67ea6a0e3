import { sql } from 'drizzle-orm';
import { type Db, preparedStatements, savepoint } from '../../../../db/client.ts';
import { prepareSql } from '../../../../db/engine/session.ts';
import { webhookDeliveries, webhooks } from '../../../../db/schema/index.ts';
import { inNextCommit } from '../../batch.ts';
import type { Runtime } from '../../context.ts';
import { recordDeliveryAttempt } from '../delivery-log.ts';
import type { AttemptResult } from '../transport.ts';
import { handOut, type DeliveryClaim, type DeliveryOutcome } from './claim.ts';
import { releaseIfIdle, renewLease, setSending, type HeldQueue } from './lease.ts';
import { AUTO_DISABLE_FAILURES, AUTO_DISABLE_WINDOW_MS, judgeAttempt } from './policy.ts';

/** One attempt made, waiting to be recorded. */
export interface Attempt {
  claim: DeliveryClaim;
  deliveryId: string;
  sentAt: Date;
  result: AttemptResult;
}

export interface Recorded {
  outcome: DeliveryOutcome;
  /** The subscription's next due job, handed out in the same commit, when asked for and there is one. */
  next: DeliveryClaim | null;
}

interface PendingRecords {
  attempts: Attempt[];
  carryOn: boolean[];
  recorded: Promise<Recorded[]>;
}

const pendingRecords = new WeakMap<Db, PendingRecords>();

/**
 * Records an attempt in the next group commit, together with every other attempt finished in the
 * same turn of the event loop: one savepoint and one lease renewal per subscription for all of
 * them. With `carryOn`, the slot's next due job of the same subscription is handed out in that commit.
 */
export function recordInNextCommit(runtime: Runtime, attempt: Attempt, carryOn: boolean): Promise<Recorded> {
  const { db } = runtime;
  let pending = pendingRecords.get(db);
  if (!pending) {
    const attempts: Attempt[] = [];
    const carryOns: boolean[] = [];
    const batch: PendingRecords = {
      attempts,
      carryOn: carryOns,
      recorded: inNextCommit(db, async () => {
        pendingRecords.delete(db);
        return savepoint(db, async () => recordAttempts(runtime, attempts, carryOns));
      }),
    };
    // A commit that fails before the work above runs must not leave later attempts joining it.
    batch.recorded.catch(() => {
      if (pendingRecords.get(db) === batch) pendingRecords.delete(db);
    });
    // Committed (or failed, and the jobs are still queued to be sent again): read ahead again.
    const recorded = () => {
      for (const { claim } of attempts) claim.queue.recording.delete(claim.jobId);
    };
    batch.recorded.then(recorded, recorded);
    pendingRecords.set(db, (pending = batch));
  }
  const index = pending.attempts.push(attempt) - 1;
  pending.carryOn.push(carryOn);
  return pending.recorded.then((recorded) => recorded[index]!);
}

async function recordAttempts(runtime: Runtime, attempts: Attempt[], carryOn: boolean[]): Promise<Recorded[]> {
  const now = runtime.clock.now();
  const nowMs = now.getTime();
  // One renewal per subscription: it is also the check that the lease is still this process's.
  const held = new Map<HeldQueue, boolean>();
  const recorded: Recorded[] = [];
  // Each queue counts this commit at work on it until its slots have their next jobs (releaseIfIdle).
  const queues = new Set(attempts.map((attempt) => attempt.claim.queue));
  for (const queue of queues) queue.recordingsUnderway++;
  try {
    for (const attempt of attempts) {
      const { queue } = attempt.claim;
      let stillHeld = held.get(queue);
      if (stillHeld === undefined) held.set(queue, (stillHeld = await renewLease(runtime, queue, nowMs)));
      queue.inHand.delete(attempt.claim.jobId);
      queue.recording.add(attempt.claim.jobId);
      recorded.push({ outcome: stillHeld ? await recordAttempt(runtime, attempt, now) : 'lease_lost', next: null });
    }
    // The slots that go on take their subscription's next due job in this same commit.
    for (const [i, entry] of recorded.entries()) {
      if (carryOn[i] && entry.outcome !== 'lease_lost')
        entry.next = await handOut(runtime, attempts[i]!.claim.queue, nowMs);
    }
  } finally {
    for (const queue of queues) queue.recordingsUnderway--;
  }
  for (const queue of queues) await releaseIfIdle(runtime, queue);
  return recorded;
}

/** Writes one attempt's log row and moves its job on; `lease_lost` (nothing written) when the job is no longer where the attempt left it. */
async function recordAttempt(
  runtime: Runtime,
  { claim, deliveryId, sentAt, result }: Attempt,
  now: Date,
): Promise<DeliveryOutcome> {
  const { db, config } = runtime;
  const s = statements(db);
  const verdict = judgeAttempt(config, claim.attempt, result);
  const job = {
    address: claim.jobAddress,
    id: claim.jobId,
    attemptsBefore: claim.attempt - 1,
    attempts: claim.attempt,
  };
  const moved =
    verdict.status === 'pending_retry'
      ? await s.retry.run({ ...job, nextAttemptAt: now.getTime() + verdict.retryAfterMs })
      : await s.finish.run({ ...job, state: verdict.status === 'delivered' ? 'delivered' : 'dead' });
  if (moved.changes === 0) return 'lease_lost';
  const webhookId = claim.queue.webhookId;
  await recordDeliveryAttempt(db, deliveryId, {
    webhookId,
    jobId: claim.jobId,
    eventId: claim.event.id,
    eventType: claim.event.type,
    attempt: claim.attempt,
    status: verdict.status,
    result,
    at: sentAt,
    isTest: false,
  });
  if (verdict.status === 'delivered') return 'delivered';
  const failures = (await s.recentFailures.get({ webhookId, since: now.getTime() - AUTO_DISABLE_WINDOW_MS }))!.n;
  if (
    failures >= AUTO_DISABLE_FAILURES &&
    (await s.autoDisable.run({ id: webhookId, leaseToken: claim.queue.leaseToken, now: now.getTime() })).changes > 0
  )
    setSending(claim.queue, false);
  return verdict.status === 'failed' ? 'dead' : 'retry';
}

/**
 * The job an attempt was made for, still queued with the attempts it had when handed out: what
 * stands for the attempt handed out, so a move whose job another attempt moved first changes nothing.
 */
const asHandedOut = (db: Db) =>
  sql`${db.$store.sql.atRowAddress('webhook_jobs', sql`${sql.placeholder('address')}`)} and id = ${sql.placeholder('id')}
    and state = 'queued' and attempts = ${sql.placeholder('attemptsBefore')}`;

type JobMove = {
  address: number | null;
  id: string;
  attemptsBefore: number;
  attempts: number;
};

const statements = preparedStatements((db) => ({
  // Raw, and found by its address on SQLite (rowid, checked against the id), by its key on
  // PostgreSQL: run once per attempt, where drizzle's placeholders and the id's index cost as much as
  // the update itself.
  retry: prepareSql<never, JobMove & { nextAttemptAt: number }>(
    db,
    sql`update webhook_jobs set attempts = ${sql.placeholder('attempts')}, next_attempt_at = ${sql.placeholder('nextAttemptAt')}
      where ${asHandedOut(db)}`,
  ),
  finish: prepareSql<never, JobMove & { state: 'delivered' | 'dead' }>(
    db,
    sql`update webhook_jobs set state = ${sql.placeholder('state')}, attempts = ${sql.placeholder('attempts')}
      where ${asHandedOut(db)}`,
  ),
  recentFailures: db
    .select({ n: sql<number>`count(*)` })
    .from(webhookDeliveries)
    .where(
      sql`${webhookDeliveries.webhookId} = ${sql.placeholder('webhookId')} and ${webhookDeliveries.deliveredAt} > ${sql.placeholder('since')}
        and ${webhookDeliveries.status} <> 'delivered' and ${webhookDeliveries.isTest} = ${db.$store.sql.false}`,
    )
    .prepare(),
  autoDisable: db
    .update(webhooks)
    .set({ isEnabled: false, autoDisabledAt: sql`${sql.placeholder('now')}` })
    // Only while this process holds the subscription: the lease it was renewed under a moment ago.
    .where(
      sql`${webhooks.id} = ${sql.placeholder('id')} and ${webhooks.leaseToken} = ${sql.placeholder('leaseToken')}
        and ${webhooks.isEnabled} = ${db.$store.sql.true}`,
    )
    .prepare(),
}));
