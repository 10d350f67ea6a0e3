import { sql } from 'drizzle-orm';
import { insertRow, preparedStatements, savepoint, writeTransaction, type Db } from '../../../db/client.ts';
import { events, webhookDeliveries, webhookFanoutCursor, webhookJobs, webhooks } from '../../../db/schema/index.ts';
import { inNextCommit } from '../batch.ts';
import type { Config } from '../config.ts';
import type { Runtime } from '../context.ts';
import { newId, randomBase62 } from '../ids.ts';
import { newDeliveryId, recordDeliveryAttempt } from './deliveries.ts';
import { envelopeBody, signedHeaders, type OutboxEvent } from './envelope.ts';
import { decryptSecret } from './secrets.ts';
import { isDelivered, postWebhook, type AttemptResult } from './transport.ts';

/** DECISIONS.md, Delivery: a queued delivery older than this is abandoned. */
const EXPIRY_MS = 72 * 3_600_000;
/** SPEC.md, Delivery and retries: five failed deliveries inside a rolling hour disable the subscription. */
const AUTO_DISABLE_FAILURES = 5;
const AUTO_DISABLE_WINDOW_MS = 3_600_000;
const EVENTS_PER_FAN_OUT = 500;
/** Deliveries one slot makes in a row to the same subscription before going back to the worker. */
const CHAIN_LENGTH = 100;
/** A subscription's lease outlives an attempt's deadline by this much, which covers recording it. */
const LEASE_MARGIN_MS = 5_000;

/**
 * A subscription's queue as this process holds it. One process at a time holds a subscription
 * (its lease on the `webhooks` row), so a delivery needs no claim of its own: the holder reads
 * due jobs in batches and sends them, and the jobs stay `queued` until their attempt is recorded.
 * A holder that dies leaves them queued; whoever takes the lease after it runs out sends them
 * again (at least once).
 */
interface HeldQueue {
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
  /** False once the subscription is seen disabled: nothing more is handed out. */
  sending: boolean;
}

interface QueuedJob {
  jobId: string;
  /** Where the row is: recording an attempt goes straight to it instead of through the id's index. */
  jobRowid: number;
  /** Attempts made so far. */
  attempts: number;
  createdAt: number;
  event: OutboxEvent;
}

/** A delivery handed to a slot, with everything its attempt needs. */
export interface DeliveryClaim {
  jobId: string;
  jobRowid: number;
  /** The attempt about to be made (1 to 6). */
  attempt: number;
  event: OutboxEvent;
  queue: HeldQueue;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'dead' | 'lease_lost' | 'handed_back';

/** The queues each connection (process) holds, by subscription id. */
const heldQueues = new WeakMap<Db, Map<string, HeldQueue>>();
function queuesOf(db: Db): Map<string, HeldQueue> {
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

/**
 * Turns new outbox events into delivery jobs: one per event and matching subscription of its
 * workspace, disabled ones included (nothing is lost while disabled). A subscription only gets
 * events written after it was made; an empty `events` list matches every type. Reads the outbox in
 * order from a shared cursor, in the caller's write transaction, so processes never fan out twice.
 * Returns how many events it read (at most EVENTS_PER_FAN_OUT: call again while it reads that many).
 */
export function fanOutEvents(runtime: Runtime): number {
  const { db, clock } = runtime;
  const s = statements(db);
  const cursor = s.cursor.get()?.lastSeq ?? 0;
  const batch = s.eventsAfter.all({ after: cursor, limit: EVENTS_PER_FAN_OUT });
  if (batch.length === 0) return 0;
  const now = clock.now();
  const subscriptions = new Map<string, Array<{ id: string; events: string[]; startAfterSeq: number }>>();
  writeTransaction(db, () => {
    for (const event of batch) {
      let subs = subscriptions.get(event.workspaceId);
      if (!subs)
        subscriptions.set(event.workspaceId, (subs = s.subscriptionsOf.all({ workspaceId: event.workspaceId })));
      for (const sub of subs) {
        if (event.seq <= sub.startAfterSeq) continue;
        if (sub.events.length > 0 && !sub.events.includes(event.type)) continue;
        insertRow(db, webhookJobs, {
          id: newId(),
          webhookId: sub.id,
          workspaceId: event.workspaceId,
          eventId: event.id,
          state: 'queued',
          attempts: 0,
          nextAttemptAt: now,
          createdAt: event.createdAt,
        });
      }
    }
    s.advanceCursor.run({ lastSeq: batch.at(-1)!.seq });
  });
  return batch.length;
}

/** Fans out every event written so far (a bounded number of batches per call). */
export function fanOutAllEvents(runtime: Runtime): void {
  for (let batch = 0; batch < 20 && fanOutEvents(runtime) === EVENTS_PER_FAN_OUT; batch++);
}

/** No subscription gets more than a quarter of the slots, so one slow endpoint cannot hold up the others. */
const slotsPerSubscription = (config: Config): number => Math.max(1, Math.ceil(config.webhooks.concurrency / 4));

/**
 * Hands out up to `free` due deliveries of enabled subscriptions, the longest waiting subscription
 * first, each subscription's in queue order and at most a quarter of the slots to one. A
 * subscription is taken over when no other process holds it (or its holder's lease ran out); one
 * held by another process is left to it. A job older than 72 hours is abandoned here instead of sent.
 * A busy subscription's backlog is never walked: each subscription's queue has its own index.
 */
export function claimDueDeliveries(runtime: Runtime, free: number): DeliveryClaim[] {
  const { db, clock, config } = runtime;
  const claims: DeliveryClaim[] = [];
  if (free <= 0) return claims;
  const now = clock.now().getTime();
  const s = statements(db);
  const queues = queuesOf(db);
  const cap = slotsPerSubscription(config);
  writeTransaction(db, () => {
    for (const ready of s.ready.all({ now })) {
      let queue = queues.get(ready.webhookId);
      if (queue) {
        letGoOfLost(runtime, queue, now);
        if (queue.inHand.size >= cap || !renewLease(runtime, queue, now)) continue;
      } else {
        queue = takeOver(runtime, ready, now) ?? undefined;
        if (!queue) continue;
      }
      const room = Math.min(cap - queue.inHand.size, free - claims.length);
      for (let claim, taken = 0; taken < room && (claim = handOut(runtime, queue, now)); taken++) claims.push(claim);
      releaseIfIdle(runtime, queue);
      if (claims.length >= free) break;
    }
  });
  return claims;
}

/** Takes a subscription's lease when nobody holds it (or its holder's ran out), inside the caller's transaction. */
function takeOver(
  runtime: Runtime,
  ready: { webhookId: string; url: string; secretCiphertext: string; leaseExpiresAt: number | null },
  now: number,
): HeldQueue | null {
  if (ready.leaseExpiresAt !== null && ready.leaseExpiresAt > now) return null;
  const leaseToken = randomBase62(22);
  const taken = statements(runtime.db).takeLease.run({
    id: ready.webhookId,
    leaseToken,
    now,
    until: leaseUntil(runtime, now),
  });
  if (taken.changes === 0) return null;
  const queue: HeldQueue = {
    webhookId: ready.webhookId,
    leaseToken,
    url: ready.url,
    secretCiphertext: ready.secretCiphertext,
    readAhead: [],
    inHand: new Map(),
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
function renewLease(runtime: Runtime, queue: HeldQueue, now: number): boolean {
  const s = statements(runtime.db);
  const row = s.heldLease.get({ id: queue.webhookId, leaseToken: queue.leaseToken });
  if (!row) {
    queue.sending = false;
    queue.readAhead.length = 0;
    const queues = queuesOf(runtime.db);
    if (queues.get(queue.webhookId) === queue) queues.delete(queue.webhookId);
    return false;
  }
  // Still this process's token, so nobody took it over, even if it ran out a moment ago.
  if (row.leaseExpiresAt - now < runtime.config.webhooks.timeoutMs + LEASE_MARGIN_MS / 2) {
    s.extendLease.run({ id: queue.webhookId, until: leaseUntil(runtime, now) });
  }
  queue.url = row.url;
  queue.secretCiphertext = row.secretCiphertext;
  setSending(queue, row.isEnabled === 1);
  return true;
}

/** A disabled subscription hands out nothing more; enabled again, it reads its queue afresh (resumed oldest first). */
function setSending(queue: HeldQueue, sending: boolean): void {
  if (!sending) queue.readAhead.length = 0;
  queue.sending = sending;
}

/**
 * The next due job of a held queue, or null. Read ahead in batches, skipping the jobs already in a
 * slot; a job older than 72 hours is abandoned instead. Inside the caller's write transaction.
 */
function handOut(runtime: Runtime, queue: HeldQueue, now: number): DeliveryClaim | null {
  if (!queue.sending) return null;
  for (;;) {
    if (queue.readAhead.length === 0) {
      letGoOfLost(runtime, queue, now);
      const rows = statements(runtime.db).dueOf.all({
        webhookId: queue.webhookId,
        now,
        inHand: JSON.stringify([...queue.inHand.keys()]),
      });
      // Reversed, so handing out the oldest is a pop.
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        queue.readAhead.push({
          jobId: row.jobId,
          jobRowid: row.jobRowid,
          attempts: row.attempts,
          createdAt: row.createdAt,
          event: {
            id: row.eventId,
            type: row.eventType,
            workspaceId: row.workspaceId,
            data: row.eventData,
            createdAt: new Date(row.eventCreatedAt),
          },
        });
      }
    }
    const job = queue.readAhead.pop();
    if (!job) return null;
    if (now - job.createdAt >= EXPIRY_MS) {
      expire(
        runtime.db,
        {
          jobId: job.jobId,
          webhookId: queue.webhookId,
          eventId: job.event.id,
          eventType: job.event.type,
          attempts: job.attempts,
        },
        new Date(now),
      );
      continue;
    }
    queue.inHand.set(job.jobId, now);
    return { jobId: job.jobId, jobRowid: job.jobRowid, attempt: job.attempts + 1, event: job.event, queue };
  }
}

/**
 * Forgets jobs handed out longer ago than an attempt's deadline and the lease's margin: their slot
 * never got them (the commit that handed them out failed) or never came back to record them.
 * Still queued, they are read and sent again (at least once); should the first attempt be recorded
 * after all, whichever of the two is recorded second finds the job moved on and writes nothing.
 */
function letGoOfLost(runtime: Runtime, queue: HeldQueue, now: number): void {
  const before = now - runtime.config.webhooks.timeoutMs - LEASE_MARGIN_MS;
  for (const [jobId, handedOutAt] of queue.inHand) if (handedOutAt < before) queue.inHand.delete(jobId);
}

/**
 * Gives a held subscription back when nothing of it is in a slot and nothing more is to be handed
 * out (its queue ran dry, or it was disabled), so another process may take it at once.
 */
function releaseIfIdle(runtime: Runtime, queue: HeldQueue): void {
  if (queue.inHand.size > 0 || (queue.sending && queue.readAhead.length > 0)) return;
  const queues = queuesOf(runtime.db);
  if (queues.get(queue.webhookId) !== queue) return;
  queues.delete(queue.webhookId);
  statements(runtime.db).releaseLease.run({ id: queue.webhookId, leaseToken: queue.leaseToken });
}

/**
 * Gives back every subscription this process holds, when its delivery worker has stopped (nothing
 * is in a slot any more): another process, or this one started again, takes them over at once
 * instead of waiting for the leases to run out.
 */
export function releaseHeldDeliveries(runtime: Runtime): void {
  writeTransaction(runtime.db, () => {
    for (const queue of [...queuesOf(runtime.db).values()]) {
      setSending(queue, false);
      releaseIfIdle(runtime, queue);
    }
  });
}

/**
 * Makes a delivery and, in the same slot, its subscription's next due ones: each attempt is signed
 * afresh and recorded with one log row (`delivered`; `pending_retry` with the next attempt
 * scheduled; or `failed` after the last attempt, dead-lettered), and the subscription auto-disabled
 * on its fifth failed attempt in an hour. Returns the last attempt's outcome. When `stopping` is
 * aborted (the process is shutting down), the attempt in flight is cut short and its job handed
 * back to the queue unrecorded, to be made again (delivery is at least once).
 */
export async function deliver(
  runtime: Runtime,
  first: DeliveryClaim,
  stopping?: AbortSignal,
): Promise<DeliveryOutcome> {
  let claim: DeliveryClaim | null = first;
  let outcome: DeliveryOutcome = 'lease_lost';
  // The slot goes straight on to the subscription's next due job, handed out in the commit that
  // records this attempt: no pass between two deliveries. Bounded, so the worker still rebalances
  // its slots between subscriptions.
  for (let made = 1; claim; made++) {
    const attempt = await attemptDelivery(runtime, claim, stopping);
    if (stopping?.aborted && !isDelivered(attempt.result)) return handBack(claim);
    ({ outcome, next: claim } = await recordInNextCommit(runtime, attempt, made < CHAIN_LENGTH && !stopping?.aborted));
    reportAttempt(runtime, outcome);
  }
  return outcome;
}

interface Attempt {
  claim: DeliveryClaim;
  deliveryId: string;
  sentAt: Date;
  result: AttemptResult;
}

/** One attempt. A failure of our own (a secret that no longer decrypts, a bug) is a failed attempt too. */
async function attemptDelivery(
  runtime: Runtime,
  claim: DeliveryClaim,
  signal: AbortSignal | undefined,
): Promise<Attempt> {
  const { config, clock } = runtime;
  const deliveryId = newDeliveryId();
  const sentAt = clock.now();
  const { url, secretCiphertext } = claim.queue;
  try {
    const body = envelopeBody(claim.event, deliveryId, claim.attempt);
    const headers = signedHeaders(secretOf(runtime, secretCiphertext), claim.event.id, body, sentAt);
    const result = await postWebhook(url, body, headers, {
      timeoutMs: config.webhooks.timeoutMs,
      allowPrivateUrls: config.webhooks.allowPrivateUrls,
      signal,
    });
    return { claim, deliveryId, sentAt, result };
  } catch (cause) {
    return { claim, deliveryId, sentAt, result: internalError(cause) };
  }
}

const internalError = (cause: unknown): AttemptResult => ({
  statusCode: 0,
  responseBody: null,
  durationMs: 0,
  error: `internal error: ${cause instanceof Error ? cause.message : String(cause)}`,
});

const secrets = new Map<string, string>();

/** Decrypted once per stored value (a rotation stores a new one); AES-GCM per attempt was measurable. */
function secretOf(runtime: Runtime, ciphertext: string): string {
  let secret = secrets.get(ciphertext);
  if (secret === undefined) {
    secret = decryptSecret(runtime.config, ciphertext);
    if (secrets.size >= 10_000) secrets.clear();
    secrets.set(ciphertext, secret);
  }
  return secret;
}

/**
 * Finishes a claim whose `deliver` threw (recording an attempt failed: a bug, a database error) with
 * a failed attempt, so the retry ladder and the dead letter still apply. When even that fails, the
 * job is let go of: still queued, it is handed out again (at least once).
 */
export async function abandonDelivery(
  runtime: Runtime,
  claim: DeliveryClaim,
  cause: unknown,
): Promise<DeliveryOutcome> {
  try {
    const attempt = { claim, deliveryId: newDeliveryId(), sentAt: runtime.clock.now(), result: internalError(cause) };
    const { outcome } = await recordInNextCommit(runtime, attempt, false);
    reportAttempt(runtime, outcome);
    return outcome;
  } catch (error) {
    claim.queue.inHand.delete(claim.jobId);
    throw error;
  }
}

/**
 * An attempt cut short by the shutdown is not recorded: its job, still queued, is let go of, and the
 * subscription is given back when the worker has stopped (releaseHeldDeliveries), so it is sent again.
 */
function handBack(claim: DeliveryClaim): DeliveryOutcome {
  claim.queue.inHand.delete(claim.jobId);
  return 'handed_back';
}

/** Tells the outcome listeners about a recorded attempt, by its delivery-log status. */
function reportAttempt(runtime: Runtime, outcome: DeliveryOutcome): void {
  const status =
    outcome === 'delivered'
      ? 'delivered'
      : outcome === 'retry'
        ? 'pending_retry'
        : outcome === 'dead'
          ? 'failed'
          : null;
  if (status) runtime.outcomes.report({ kind: 'webhook_delivery', status });
}

/**
 * A subscription enabled again resumes its queue oldest first (DECISIONS.md, Delivery): deliveries
 * that came due while it was disabled are lined up by the age of their event (their due time
 * becomes the event's time, which is past); retries still waiting for their delay keep it.
 */
export function resumeDeliveries(db: Db, webhookId: string, now: Date): void {
  statements(db).resume.run({ webhookId, now: now.getTime() });
}

/** When the earliest queued delivery of an enabled subscription comes due after `now` (ms), or null. */
export function nextDeliveryDueAfter(db: Db, now: Date): number | null {
  return statements(db).nextDue.get({ now: now.getTime() })?.due ?? null;
}

interface Recorded {
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
function recordInNextCommit(runtime: Runtime, attempt: Attempt, carryOn: boolean): Promise<Recorded> {
  const { db } = runtime;
  let pending = pendingRecords.get(db);
  if (!pending) {
    const attempts: Attempt[] = [];
    const carryOns: boolean[] = [];
    const batch: PendingRecords = {
      attempts,
      carryOn: carryOns,
      recorded: inNextCommit(db, () => {
        pendingRecords.delete(db);
        return savepoint(db, () => recordAttempts(runtime, attempts, carryOns));
      }),
    };
    // A commit that fails before the work above runs must not leave later attempts joining it.
    batch.recorded.catch(() => {
      if (pendingRecords.get(db) === batch) pendingRecords.delete(db);
    });
    pendingRecords.set(db, (pending = batch));
  }
  const index = pending.attempts.push(attempt) - 1;
  pending.carryOn.push(carryOn);
  return pending.recorded.then((recorded) => recorded[index]!);
}

function recordAttempts(runtime: Runtime, attempts: Attempt[], carryOn: boolean[]): Recorded[] {
  const now = runtime.clock.now();
  const nowMs = now.getTime();
  // One renewal per subscription: it is also the check that the lease is still this process's.
  const held = new Map<HeldQueue, boolean>();
  const recorded = attempts.map((attempt): Recorded => {
    const { queue } = attempt.claim;
    let stillHeld = held.get(queue);
    if (stillHeld === undefined) held.set(queue, (stillHeld = renewLease(runtime, queue, nowMs)));
    queue.inHand.delete(attempt.claim.jobId);
    return { outcome: stillHeld ? recordAttempt(runtime, attempt, now) : 'lease_lost', next: null };
  });
  // The slots that go on take their subscription's next due job in this same commit.
  recorded.forEach((entry, i) => {
    if (carryOn[i] && entry.outcome !== 'lease_lost') entry.next = handOut(runtime, attempts[i]!.claim.queue, nowMs);
  });
  for (const queue of held.keys()) releaseIfIdle(runtime, queue);
  return recorded;
}

/** Writes one attempt's log row and moves its job on; `lease_lost` (nothing written) when the job is no longer where the attempt left it. */
function recordAttempt(runtime: Runtime, { claim, deliveryId, sentAt, result }: Attempt, now: Date): DeliveryOutcome {
  const { db, config } = runtime;
  const s = statements(db);
  const delays = config.webhooks.retryDelaysSeconds;
  const delivered = isDelivered(result);
  const last = claim.attempt > delays.length;
  const status = delivered ? 'delivered' : last ? 'failed' : 'pending_retry';
  const job = { rowid: claim.jobRowid, id: claim.jobId, attemptsBefore: claim.attempt - 1, attempts: claim.attempt };
  const moved =
    status === 'pending_retry'
      ? s.retry.run({ ...job, nextAttemptAt: now.getTime() + delays[claim.attempt - 1]! * 1000 })
      : s.finish.run({ ...job, state: delivered ? 'delivered' : 'dead' });
  if (moved.changes === 0) return 'lease_lost';
  const webhookId = claim.queue.webhookId;
  recordDeliveryAttempt(db, deliveryId, {
    webhookId,
    jobId: claim.jobId,
    eventId: claim.event.id,
    eventType: claim.event.type,
    attempt: claim.attempt,
    status,
    result,
    at: sentAt,
    isTest: false,
  });
  if (!delivered) {
    const failures = s.recentFailures.get({ webhookId, since: now.getTime() - AUTO_DISABLE_WINDOW_MS })!.n;
    if (failures >= AUTO_DISABLE_FAILURES && s.autoDisable.run({ id: webhookId, now: now.getTime() }).changes > 0)
      setSending(claim.queue, false);
  }
  return delivered ? 'delivered' : last ? 'dead' : 'retry';
}

/**
 * Abandons every queued delivery past 72 hours, also those of disabled subscriptions the worker
 * does not send, so their log says so without waiting for a re-enable. A subscription held by a
 * delivery worker is left to it: it abandons them before any attempt. Run by maintenance.
 */
export function expireStaleDeliveries(runtime: Runtime): number {
  const { db, clock } = runtime;
  const now = clock.now();
  const s = statements(db);
  return writeTransaction(db, () => {
    const stale = s.stale.all({ before: now.getTime() - EXPIRY_MS, now: now.getTime() });
    for (const job of stale) expire(db, job, now);
    return stale.length;
  });
}

/** DECISIONS.md, Delivery: abandoned as failed with response_body "expired". */
function expire(
  db: Db,
  job: { jobId: string; webhookId: string; eventId: string; eventType: string; attempts: number },
  now: Date,
): void {
  recordDeliveryAttempt(db, newDeliveryId(), {
    webhookId: job.webhookId,
    jobId: job.jobId,
    eventId: job.eventId,
    eventType: job.eventType,
    attempt: job.attempts + 1,
    status: 'failed',
    result: { statusCode: 0, responseBody: 'expired', durationMs: 0, error: null },
    at: now,
    isTest: false,
  });
  statements(db).expire.run({ id: job.jobId });
}

/** The job an attempt was made for, still queued with the attempts it had when handed out. */
const AS_HANDED_OUT = `rowid = @rowid and id = @id and state = 'queued' and attempts = @attemptsBefore`;

interface JobMove {
  rowid: number;
  id: string;
  attemptsBefore: number;
  attempts: number;
}

interface DueJobRow {
  jobRowid: number;
  jobId: string;
  attempts: number;
  createdAt: number;
  workspaceId: string;
  eventId: string;
  eventType: string;
  eventData: string;
  eventCreatedAt: number;
}

const statements = preparedStatements((db) => ({
  cursor: db
    .select({ lastSeq: webhookFanoutCursor.lastSeq })
    .from(webhookFanoutCursor)
    .where(sql`${webhookFanoutCursor.id} = 1`)
    .prepare(),
  advanceCursor: db
    .update(webhookFanoutCursor)
    .set({ lastSeq: sql`${sql.placeholder('lastSeq')}` })
    .where(sql`${webhookFanoutCursor.id} = 1`)
    .prepare(),
  eventsAfter: db
    .select({
      seq: events.seq,
      id: events.id,
      workspaceId: events.workspaceId,
      type: events.type,
      createdAt: events.createdAt,
    })
    .from(events)
    .where(sql`${events.seq} > ${sql.placeholder('after')}`)
    .orderBy(events.seq)
    .limit(sql.placeholder('limit'))
    .prepare(),
  subscriptionsOf: db
    .select({ id: webhooks.id, events: webhooks.events, startAfterSeq: webhooks.startAfterSeq })
    .from(webhooks)
    .where(sql`${webhooks.workspaceId} = ${sql.placeholder('workspaceId')}`)
    .prepare(),
  // One probe of webhook_jobs_queue_idx per enabled subscription (min over an index prefix).
  ready: db
    .select({
      webhookId: webhooks.id,
      url: webhooks.url,
      secretCiphertext: webhooks.secretCiphertext,
      leaseExpiresAt: sql<number | null>`${webhooks.leaseExpiresAt}`,
      // Spelled out: drizzle leaves columns of a one-table select unqualified, and a bare "id" here
      // would name the subquery's own column.
      due: sql<number>`(select min(j.next_attempt_at) from webhook_jobs j where j.webhook_id = webhooks.id and j.state = 'queued')`.as(
        'due',
      ),
    })
    .from(webhooks)
    .where(sql`${webhooks.isEnabled} = 1 and due <= ${sql.placeholder('now')}`)
    .orderBy(sql`due`)
    .prepare(),
  takeLease: db
    .update(webhooks)
    .set({ leaseToken: sql`${sql.placeholder('leaseToken')}`, leaseExpiresAt: sql`${sql.placeholder('until')}` })
    .where(
      sql`${webhooks.id} = ${sql.placeholder('id')} and (${webhooks.leaseExpiresAt} is null or ${webhooks.leaseExpiresAt} <= ${sql.placeholder('now')})`,
    )
    .prepare(),
  heldLease: db.$client.prepare<
    [{ id: string; leaseToken: string }],
    { url: string; secretCiphertext: string; isEnabled: number; leaseExpiresAt: number }
  >(
    `select url, secret_ciphertext as secretCiphertext, is_enabled as isEnabled, lease_expires_at as leaseExpiresAt
     from webhooks where id = @id and lease_token = @leaseToken`,
  ),
  extendLease: db
    .update(webhooks)
    .set({ leaseExpiresAt: sql`${sql.placeholder('until')}` })
    .where(sql`${webhooks.id} = ${sql.placeholder('id')}`)
    .prepare(),
  releaseLease: db
    .update(webhooks)
    .set({ leaseToken: null, leaseExpiresAt: null })
    .where(sql`${webhooks.id} = ${sql.placeholder('id')} and ${webhooks.leaseToken} = ${sql.placeholder('leaseToken')}`)
    .prepare(),
  // Raw, as drizzle's row mapping cost more than the read; read once per 64 deliveries. A literal
  // LIMIT: a bound one makes SQLite prepare the statement again on every run (it plans for the
  // value; ~10 µs each). The jobs already in a slot are still queued, so they are skipped.
  dueOf: db.$client.prepare<[{ webhookId: string; now: number; inHand: string }], DueJobRow>(
    `select j.rowid as jobRowid, j.id as jobId, j.attempts, j.created_at as createdAt, j.workspace_id as workspaceId,
       e.id as eventId, e.type as eventType, e.data as eventData, e.created_at as eventCreatedAt
     from webhook_jobs j join events e on e.id = j.event_id
     where j.webhook_id = @webhookId and j.state = 'queued' and j.next_attempt_at <= @now
       and j.id not in (select value from json_each(@inHand))
     order by j.next_attempt_at, j.id
     limit 64`,
  ),
  // One probe of webhook_jobs_queue_idx per enabled subscription, as `ready` makes: a queue index
  // over all subscriptions would be one more B-tree written by every fan-out and every attempt.
  // `webhooks.id` spelled out, as in `ready`.
  nextDue: db
    .select({
      due: sql<number | null>`min((select min(j.next_attempt_at) from webhook_jobs j
        where j.webhook_id = webhooks.id and j.state = 'queued' and j.next_attempt_at > ${sql.placeholder('now')}))`,
    })
    .from(webhooks)
    .where(sql`${webhooks.isEnabled} = 1`)
    .prepare(),
  resume: db
    .update(webhookJobs)
    .set({ nextAttemptAt: sql`${webhookJobs.createdAt}` })
    .where(
      sql`${webhookJobs.webhookId} = ${sql.placeholder('webhookId')} and ${webhookJobs.state} = 'queued'
        and ${webhookJobs.nextAttemptAt} <= ${sql.placeholder('now')}`,
    )
    .prepare(),
  // Raw, and found by rowid (checked against the id): run once per attempt, where drizzle's
  // placeholders and the id's index cost as much as the update itself.
  retry: db.$client.prepare<[JobMove & { nextAttemptAt: number }]>(
    `update webhook_jobs set attempts = @attempts, next_attempt_at = @nextAttemptAt where ${AS_HANDED_OUT}`,
  ),
  finish: db.$client.prepare<[JobMove & { state: 'delivered' | 'dead' }]>(
    `update webhook_jobs set state = @state, attempts = @attempts where ${AS_HANDED_OUT}`,
  ),
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
    .where(sql`${webhookJobs.id} = ${sql.placeholder('id')}`)
    .prepare(),
  recentFailures: db
    .select({ n: sql<number>`count(*)` })
    .from(webhookDeliveries)
    .where(
      sql`${webhookDeliveries.webhookId} = ${sql.placeholder('webhookId')} and ${webhookDeliveries.deliveredAt} > ${sql.placeholder('since')}
        and ${webhookDeliveries.status} <> 'delivered' and ${webhookDeliveries.isTest} = 0`,
    )
    .prepare(),
  autoDisable: db
    .update(webhooks)
    .set({ isEnabled: false, autoDisabledAt: sql`${sql.placeholder('now')}` })
    .where(sql`${webhooks.id} = ${sql.placeholder('id')} and ${webhooks.isEnabled} = 1`)
    .prepare(),
}));
