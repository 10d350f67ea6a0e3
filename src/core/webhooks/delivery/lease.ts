import { sql } from 'drizzle-orm';
import { type Db, preparedStatements, prepareText, writeTransaction } from '../../../../db/client.ts';
import { webhooks } from '../../../../db/schema/index.ts';
import type { Runtime } from '../../context.ts';
import { randomBase62 } from '../../ids.ts';
import type { OutboxEvent } from '../envelope.ts';

/** A subscription's lease outlives an attempt's deadline by this much, which covers recording it. */
const LEASE_MARGIN_MS = 5_000;

/**
 * A subscription's queue as this process holds it. One process at a time holds a subscription
 * (its lease on the `webhooks` row), so a delivery needs no claim of its own: the holder reads
 * due jobs in batches and sends them, and the jobs stay `queued` until their attempt is recorded.
 * A holder that dies leaves them queued; whoever takes the lease after it runs out sends them
 * again (at least once).
 */
export interface HeldQueue {
  webhookId: string;
  leaseToken: string;
  /** As of the last renewal of the lease, which reads them again (a PATCHed URL, a rotated secret). */
  url: string;
  secretCiphertext: string;
  /** Due jobs read ahead in queue order, not yet handed to a slot. */
  readAhead: QueuedJob[];
  /**
   * Jobs handed to a slot whose attempt is not recorded yet (still `queued` in the table), with
   * when they were handed out. One held longer than an attempt and its recording can take was lost
   * to a failed commit: it is let go of (see `letGoOfLost`), so it is read and sent again.
   */
  inHand: Map<string, number>;
  /**
   * Jobs whose attempt is written in a commit not made yet. Until it is, every other unit still sees
   * them `queued` (on PostgreSQL, where units run side by side), so a read ahead leaves them out.
   */
  recording: Set<string>;
  /**
   * Whether a read ahead is out. On PostgreSQL units run side by side (a pass claiming, a slot's
   * recording handing out its next job), and two reads ahead at once would both line up the same jobs.
   */
  readingAhead: boolean;
  /**
   * Commits recording attempts of this queue that are still at work. Until they end, the queue is
   * not given back: each may hand its slot the next job, which must be handed out under the lease.
   */
  recordingsUnderway: number;
  /** False once the subscription is seen disabled: nothing more is handed out. */
  sending: boolean;
}

export interface QueuedJob {
  jobId: string;
  /** Where the row is (EngineSql.rowAddress): recording an attempt goes straight to it instead of through the id's index. */
  jobAddress: number | null;
  /** Attempts made so far. */
  attempts: number;
  createdAt: number;
  event: OutboxEvent;
}

/** The queues each connection (process) holds, by subscription id. */
const heldQueues = new WeakMap<Db, Map<string, HeldQueue>>();
export function queuesOf(db: Db): Map<string, HeldQueue> {
  let queues = heldQueues.get(db);
  if (!queues) heldQueues.set(db, (queues = new Map()));
  return queues;
}

/** Attempts this process has out (handed to a slot, not recorded yet), over every subscription it holds. */
export function deliveriesInHand(db: Db): number {
  let n = 0;
  for (const queue of queuesOf(db).values()) n += queue.inHand.size;
  return n;
}

/** Takes a subscription's lease when nobody holds it (or its holder's ran out), inside the caller's transaction. */
export async function takeOver(
  runtime: Runtime,
  subscription: { webhookId: string; url: string; secretCiphertext: string; leaseExpiresAt: number | null },
  now: number,
): Promise<HeldQueue | null> {
  if (subscription.leaseExpiresAt !== null && subscription.leaseExpiresAt > now) return null;
  const leaseToken = randomBase62(22);
  const taken = await statements(runtime.db).takeLease.run({
    id: subscription.webhookId,
    leaseToken,
    now,
    until: leaseUntil(runtime, now),
  });
  if (taken.changes === 0) return null;
  const queue: HeldQueue = {
    webhookId: subscription.webhookId,
    leaseToken,
    url: subscription.url,
    secretCiphertext: subscription.secretCiphertext,
    readAhead: [],
    inHand: new Map(),
    recording: new Set(),
    readingAhead: false,
    recordingsUnderway: 0,
    sending: true,
  };
  queuesOf(runtime.db).set(queue.webhookId, queue);
  return queue;
}

const leaseUntil = (runtime: Runtime, now: number): number => now + runtime.config.webhooks.timeoutMs + LEASE_MARGIN_MS;

/**
 * Checks that the lease on `queue` is still this process's and reads the subscription's URL,
 * secret and state again, inside the caller's transaction. Extends the lease once half of its
 * margin is used, so an attempt handed out after this check ends (its deadline) well before the
 * lease does; not at every commit, which would write the subscription's page into each. False
 * when the lease was lost (it ran out and another process took the subscription, or the
 * subscription was deleted): the queue is dropped and nothing of it is written.
 */
export async function renewLease(runtime: Runtime, queue: HeldQueue, now: number): Promise<boolean> {
  const s = statements(runtime.db);
  const lost = () => {
    queue.sending = false;
    queue.readAhead.length = 0;
    const queues = queuesOf(runtime.db);
    if (queues.get(queue.webhookId) === queue) queues.delete(queue.webhookId);
    return false;
  };
  const row = await s.heldLease.get({ id: queue.webhookId, leaseToken: queue.leaseToken });
  if (!row) return lost();
  // Still this process's token, so nobody took it over, even if it ran out a moment ago. The
  // extension asks for the token again, so it never extends a lease another process took over,
  // whatever isolation the read and the write get (on SQLite the caller's transaction holds both).
  if (row.leaseExpiresAt - now < runtime.config.webhooks.timeoutMs + LEASE_MARGIN_MS / 2) {
    const extended = await s.extendLease.run({
      id: queue.webhookId,
      leaseToken: queue.leaseToken,
      until: leaseUntil(runtime, now),
    });
    if (extended.changes === 0) return lost();
  }
  queue.url = row.url;
  queue.secretCiphertext = row.secretCiphertext;
  // A 0/1 integer on SQLite, a boolean on PostgreSQL.
  setSending(queue, Boolean(row.isEnabled));
  return true;
}

/** A disabled subscription hands out nothing more; enabled again, it reads its queue afresh (resumed oldest first). */
export function setSending(queue: HeldQueue, sending: boolean): void {
  if (!sending) queue.readAhead.length = 0;
  queue.sending = sending;
}

/**
 * Forgets jobs handed out longer ago than an attempt's deadline and the lease's margin: their slot
 * never got them (the commit that handed them out failed) or never came back to record them.
 * Still queued, they are read and sent again (at least once); should the first attempt be recorded
 * after all, whichever of the two is recorded second finds the job moved on and writes nothing.
 */
export function letGoOfLost(runtime: Runtime, queue: HeldQueue, now: number): void {
  const before = now - runtime.config.webhooks.timeoutMs - LEASE_MARGIN_MS;
  for (const [jobId, handedOutAt] of queue.inHand) if (handedOutAt < before) queue.inHand.delete(jobId);
}

/**
 * Gives a held subscription back when nothing of it is in a slot and nothing more is to be handed
 * out (its queue ran dry, or it was disabled), so another process may take it at once. Not while
 * another unit works on it (on PostgreSQL units run side by side): one recording attempts may hand
 * its slots their next jobs, one reading ahead will hand out what it reads.
 */
export async function releaseIfIdle(runtime: Runtime, queue: HeldQueue): Promise<void> {
  const busy = queue.inHand.size > 0 || queue.recordingsUnderway > 0 || queue.readingAhead;
  if (busy || (queue.sending && queue.readAhead.length > 0)) return;
  const queues = queuesOf(runtime.db);
  if (queues.get(queue.webhookId) !== queue) return;
  queues.delete(queue.webhookId);
  await statements(runtime.db).releaseLease.run({ id: queue.webhookId, leaseToken: queue.leaseToken });
}

/**
 * Gives back every subscription this process holds, when its delivery worker has stopped (nothing
 * is in a slot any more): another process, or this one started again, takes them over at once
 * instead of waiting for the leases to run out.
 */
export async function releaseHeldDeliveries(runtime: Runtime): Promise<void> {
  await writeTransaction(runtime.db, async () => {
    for (const queue of [...queuesOf(runtime.db).values()]) {
      setSending(queue, false);
      await releaseIfIdle(runtime, queue);
    }
  });
}

const statements = preparedStatements((db) => ({
  takeLease: db
    .update(webhooks)
    .set({ leaseToken: sql`${sql.placeholder('leaseToken')}`, leaseExpiresAt: sql`${sql.placeholder('until')}` })
    .where(
      sql`${webhooks.id} = ${sql.placeholder('id')} and (${webhooks.leaseExpiresAt} is null or ${webhooks.leaseExpiresAt} <= ${sql.placeholder('now')})`,
    )
    .prepare(),
  heldLease: prepareText<
    { id: string; leaseToken: string },
    { url: string; secretCiphertext: string; isEnabled: number | boolean; leaseExpiresAt: number }
  >(
    db,
    `select url, secret_ciphertext as "secretCiphertext", is_enabled as "isEnabled", lease_expires_at as "leaseExpiresAt"
     from webhooks where id = @id and lease_token = @leaseToken`,
  ),
  extendLease: db
    .update(webhooks)
    .set({ leaseExpiresAt: sql`${sql.placeholder('until')}` })
    .where(sql`${webhooks.id} = ${sql.placeholder('id')} and ${webhooks.leaseToken} = ${sql.placeholder('leaseToken')}`)
    .prepare(),
  releaseLease: db
    .update(webhooks)
    .set({ leaseToken: null, leaseExpiresAt: null })
    .where(sql`${webhooks.id} = ${sql.placeholder('id')} and ${webhooks.leaseToken} = ${sql.placeholder('leaseToken')}`)
    .prepare(),
}));
