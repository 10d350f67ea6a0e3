import { sql } from 'drizzle-orm';
import { preparedStatements, savepoint, writeTransaction, type Db } from '../../../db/client.ts';
import { events, webhookDeliveries, webhookFanoutCursor, webhookJobs, webhooks } from '../../../db/schema/index.ts';
import { inNextCommit } from '../batch.ts';
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

/** A delivery job this process holds, with everything its attempt needs. */
export interface DeliveryClaim {
  jobId: string;
  webhookId: string;
  leaseToken: string;
  url: string;
  secretCiphertext: string;
  /** The attempt about to be made (1 to 6). */
  attempt: number;
  event: OutboxEvent;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'dead' | 'lease_lost' | 'handed_back';

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
  const now = clock.now().getTime();
  const subscriptions = new Map<string, Array<{ id: string; events: string[]; startAfterSeq: number }>>();
  writeTransaction(db, () => {
    for (const event of batch) {
      let subs = subscriptions.get(event.workspaceId);
      if (!subs) subscriptions.set(event.workspaceId, (subs = s.subscriptionsOf.all({ workspaceId: event.workspaceId })));
      for (const sub of subs) {
        if (event.seq <= sub.startAfterSeq) continue;
        if (sub.events.length > 0 && !sub.events.includes(event.type)) continue;
        s.insertJob.run({
          id: newId(),
          webhookId: sub.id,
          workspaceId: event.workspaceId,
          eventId: event.id,
          nextAttemptAt: now,
          createdAt: event.createdAt.getTime(),
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

/**
 * Takes up to `free` due deliveries of enabled subscriptions, oldest due first, each under a lease
 * that outlives one attempt's deadline. Jobs whose holder died go back to the queue first (their
 * attempt is made again: delivery is at least once). A job older than 72 hours is abandoned here
 * instead of sent. No subscription gets more than a quarter of the slots, so one slow endpoint
 * cannot hold up the others, and a busy subscription's backlog is never walked: each subscription's
 * queue has its own index.
 */
export function claimDueDeliveries(runtime: Runtime, free: number, inHand: Iterable<DeliveryClaim>): DeliveryClaim[] {
  const { db, clock, config } = runtime;
  const now = clock.now();
  const s = statements(db);
  const claims: DeliveryClaim[] = [];
  if (free <= 0) return claims;
  const perWebhook = new Map<string, number>();
  for (const claim of inHand) perWebhook.set(claim.webhookId, (perWebhook.get(claim.webhookId) ?? 0) + 1);
  const cap = Math.max(1, Math.ceil(config.webhooks.concurrency / 4));

  writeTransaction(db, () => {
    s.requeueExpired.run({ now: now.getTime() });
    // Subscriptions with work due, the longest waiting first; from each, its own queue in due order.
    for (const { webhookId } of s.ready.all({ now: now.getTime() })) {
      const room = Math.min(cap - (perWebhook.get(webhookId) ?? 0), free - claims.length);
      if (room <= 0) continue;
      const taken = claimFrom(runtime, webhookId, room, now);
      claims.push(...taken);
      perWebhook.set(webhookId, (perWebhook.get(webhookId) ?? 0) + taken.length);
      if (claims.length >= free) break;
    }
  });
  return claims;
}

/**
 * Claims up to `limit` due jobs of one subscription, in due order, inside the caller's transaction.
 * A job older than 72 hours is abandoned instead.
 */
function claimFrom(runtime: Runtime, webhookId: string, limit: number, now: Date): DeliveryClaim[] {
  const { db, config } = runtime;
  const s = statements(db);
  // An attempt never outlives its deadline; the margin covers recording it.
  const leaseExpiresAt = now.getTime() + config.webhooks.timeoutMs + 5_000;
  const claims: DeliveryClaim[] = [];
  // One row at a time, each taken out of the queue before the next is read: a `LIMIT ?` would make
  // SQLite prepare the statement again on every run (a bound limit is planned for; ~10 µs each).
  for (let job; claims.length < limit && (job = s.nextDueOf.get({ webhookId, now: now.getTime() })); ) {
    if (now.getTime() - job.createdAt >= EXPIRY_MS) {
      expire(db, { ...job, webhookId }, now);
      continue;
    }
    const leaseToken = randomBase62(22);
    s.claim.run({ id: job.jobId, leaseToken, leaseExpiresAt });
    claims.push({
      jobId: job.jobId,
      webhookId,
      leaseToken,
      url: job.url,
      secretCiphertext: job.secretCiphertext,
      attempt: job.attempts + 1,
      event: { id: job.eventId, type: job.eventType, workspaceId: job.workspaceId, data: job.eventData, createdAt: new Date(job.eventCreatedAt) },
    });
  }
  return claims;
}

/**
 * Works a claimed delivery and, in the same slot, its subscription's next due ones: each attempt is
 * signed afresh and recorded with one log row (`delivered`; `pending_retry` with the next attempt
 * scheduled; or `failed` after the last attempt, dead-lettered), and the subscription auto-disabled
 * on its fifth failed attempt in an hour. Returns the last attempt's outcome. When `stopping` is
 * aborted (the process is shutting down), the attempt in flight is cut short and its job handed
 * back to the queue unrecorded, to be made again (delivery is at least once).
 */
export async function deliver(runtime: Runtime, first: DeliveryClaim, stopping?: AbortSignal): Promise<DeliveryOutcome> {
  let claim: DeliveryClaim | null = first;
  let outcome: DeliveryOutcome = 'lease_lost';
  // The slot goes straight on to the subscription's next due job, claimed in the same commit that
  // records this attempt: no pass, no extra commit between two deliveries. Bounded, so the worker
  // still rebalances its slots between subscriptions.
  for (let made = 1; claim; made++) {
    const { deliveryId, sentAt, result } = await attemptDelivery(runtime, claim, stopping);
    if (stopping?.aborted && !isDelivered(result)) return handBack(runtime, claim);
    ({ outcome, next: claim } = await settle(runtime, claim, deliveryId, sentAt, result, made < CHAIN_LENGTH && !stopping?.aborted));
    reportAttempt(runtime, outcome);
  }
  return outcome;
}

/** One attempt. A failure of our own (a secret that no longer decrypts, a bug) is a failed attempt too. */
async function attemptDelivery(
  runtime: Runtime,
  claim: DeliveryClaim,
  signal: AbortSignal | undefined,
): Promise<{ deliveryId: string; sentAt: Date; result: AttemptResult }> {
  const { config, clock } = runtime;
  const deliveryId = newDeliveryId();
  const sentAt = clock.now();
  try {
    const body = envelopeBody(claim.event, deliveryId, claim.attempt);
    const headers = signedHeaders(secretOf(runtime, claim.secretCiphertext), claim.event.id, body, sentAt);
    const result = await postWebhook(claim.url, body, headers, { timeoutMs: config.webhooks.timeoutMs, allowPrivateUrls: config.webhooks.allowPrivateUrls, signal });
    return { deliveryId, sentAt, result };
  } catch (cause) {
    return { deliveryId, sentAt, result: internalError(cause) };
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
 * a failed attempt, so the retry ladder and the dead letter still apply.
 */
export async function abandonDelivery(runtime: Runtime, claim: DeliveryClaim, cause: unknown): Promise<DeliveryOutcome> {
  const { outcome } = await settle(runtime, claim, newDeliveryId(), runtime.clock.now(), internalError(cause));
  reportAttempt(runtime, outcome);
  return outcome;
}

/** Puts a held job back in the queue as it was before the claim, due at once; only under its lease. */
async function handBack(runtime: Runtime, claim: DeliveryClaim): Promise<DeliveryOutcome> {
  const { db } = runtime;
  const { changes } = await inNextCommit(db, () => statements(db).handBack.run({ id: claim.jobId, leaseToken: claim.leaseToken }));
  return changes === 0 ? 'lease_lost' : 'handed_back';
}

/** Tells the outcome listeners about a recorded attempt, by its delivery-log status. */
function reportAttempt(runtime: Runtime, outcome: DeliveryOutcome): void {
  const status = outcome === 'delivered' ? 'delivered' : outcome === 'retry' ? 'pending_retry' : outcome === 'dead' ? 'failed' : null;
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

interface Settled {
  outcome: DeliveryOutcome;
  /** The subscription's next due job, claimed in the same commit, when asked for and there is one. */
  next: DeliveryClaim | null;
}

function settle(
  runtime: Runtime,
  claim: DeliveryClaim,
  deliveryId: string,
  sentAt: Date,
  result: AttemptResult,
  claimNext = false,
): Promise<Settled> {
  const { db, clock, config } = runtime;
  return inNextCommit(db, () =>
    savepoint(db, (): Settled => {
      const s = statements(db);
      const now = clock.now();
      const delays = config.webhooks.retryDelaysSeconds;
      const delivered = isDelivered(result);
      const last = claim.attempt > delays.length;
      const status = delivered ? 'delivered' : last ? 'failed' : 'pending_retry';
      // The job moves on only under this claim's lease; a lost lease writes nothing.
      const moved =
        status === 'pending_retry'
          ? s.retry.run({ id: claim.jobId, leaseToken: claim.leaseToken, attempts: claim.attempt, nextAttemptAt: now.getTime() + delays[claim.attempt - 1]! * 1000 })
          : s.finish.run({ id: claim.jobId, leaseToken: claim.leaseToken, attempts: claim.attempt, state: delivered ? 'delivered' : 'dead' });
      if (moved.changes === 0) return { outcome: 'lease_lost', next: null };
      recordDeliveryAttempt(db, deliveryId, {
        webhookId: claim.webhookId,
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
        const failures = s.recentFailures.get({ webhookId: claim.webhookId, since: now.getTime() - AUTO_DISABLE_WINDOW_MS })!.n;
        if (failures >= AUTO_DISABLE_FAILURES) s.autoDisable.run({ id: claim.webhookId, now: now.getTime() });
      }
      const outcome = delivered ? 'delivered' : last ? 'dead' : 'retry';
      const next = claimNext && s.enabled.get({ id: claim.webhookId }) ? (claimFrom(runtime, claim.webhookId, 1, now)[0] ?? null) : null;
      return { outcome, next };
    }),
  );
}

/**
 * Abandons every queued delivery past 72 hours, also those of disabled subscriptions the worker
 * does not claim from, so their log says so without waiting for a re-enable. Run by maintenance.
 */
export function expireStaleDeliveries(runtime: Runtime): number {
  const { db, clock } = runtime;
  const now = clock.now();
  const s = statements(db);
  return writeTransaction(db, () => {
    const stale = s.stale.all({ before: now.getTime() - EXPIRY_MS });
    for (const job of stale) expire(db, job, now);
    return stale.length;
  });
}

/** DECISIONS.md, Delivery: abandoned as failed with response_body "expired". */
function expire(db: Db, job: { jobId: string; webhookId: string; eventId: string; eventType: string; attempts: number }, now: Date): void {
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

/** The job named by `id` is still held under `leaseToken` (placeholders). */
const HELD = sql`${webhookJobs.id} = ${sql.placeholder('id')} and ${webhookJobs.leaseToken} = ${sql.placeholder('leaseToken')} and ${webhookJobs.state} = 'delivering'`;

const QUEUED_FOR_ENABLED = sql`${webhookJobs.state} = 'queued' and ${webhooks.isEnabled} = 1`;

const statements = preparedStatements((db) => ({
  cursor: db.select({ lastSeq: webhookFanoutCursor.lastSeq }).from(webhookFanoutCursor).where(sql`${webhookFanoutCursor.id} = 1`).prepare(),
  advanceCursor: db
    .update(webhookFanoutCursor)
    .set({ lastSeq: sql`${sql.placeholder('lastSeq')}` })
    .where(sql`${webhookFanoutCursor.id} = 1`)
    .prepare(),
  eventsAfter: db
    .select({ seq: events.seq, id: events.id, workspaceId: events.workspaceId, type: events.type, createdAt: events.createdAt })
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
  insertJob: db
    .insert(webhookJobs)
    .values({
      id: sql.placeholder('id'),
      webhookId: sql.placeholder('webhookId'),
      workspaceId: sql.placeholder('workspaceId'),
      eventId: sql.placeholder('eventId'),
      state: 'queued',
      attempts: 0,
      nextAttemptAt: sql`${sql.placeholder('nextAttemptAt')}`,
      createdAt: sql`${sql.placeholder('createdAt')}`,
    })
    .prepare(),
  requeueExpired: db
    .update(webhookJobs)
    .set({ state: 'queued', leaseToken: null, leaseExpiresAt: null })
    .where(sql`${webhookJobs.state} = 'delivering' and ${webhookJobs.leaseExpiresAt} <= ${sql.placeholder('now')}`)
    .prepare(),
  // One probe of webhook_jobs_queue_idx per enabled subscription (min over an index prefix).
  ready: db
    .select({
      webhookId: webhooks.id,
      // Spelled out: drizzle leaves columns of a one-table select unqualified, and a bare "id" here
      // would name the subquery's own column.
      due: sql<number>`(select min(j.next_attempt_at) from webhook_jobs j where j.webhook_id = webhooks.id and j.state = 'queued')`.as('due'),
    })
    .from(webhooks)
    .where(sql`${webhooks.isEnabled} = 1 and due <= ${sql.placeholder('now')}`)
    .orderBy(sql`due`)
    .prepare(),
  // Without a LIMIT: read with get(), which steps once (see claimFrom).
  nextDueOf: db
    .select({
      jobId: webhookJobs.id,
      attempts: webhookJobs.attempts,
      createdAt: sql<number>`${webhookJobs.createdAt}`,
      workspaceId: webhookJobs.workspaceId,
      url: webhooks.url,
      secretCiphertext: webhooks.secretCiphertext,
      eventId: events.id,
      eventType: events.type,
      eventData: sql<string>`${events.data}`,
      eventCreatedAt: sql<number>`${events.createdAt}`,
    })
    .from(webhookJobs)
    .innerJoin(webhooks, sql`${webhooks.id} = ${webhookJobs.webhookId}`)
    .innerJoin(events, sql`${events.id} = ${webhookJobs.eventId}`)
    .where(
      sql`${webhookJobs.webhookId} = ${sql.placeholder('webhookId')} and ${webhookJobs.state} = 'queued'
        and ${webhookJobs.nextAttemptAt} <= ${sql.placeholder('now')}`,
    )
    .orderBy(webhookJobs.nextAttemptAt, webhookJobs.id)
    .prepare(),
  nextDue: db
    .select({ due: sql<number>`${webhookJobs.nextAttemptAt}` })
    .from(webhookJobs)
    .innerJoin(webhooks, sql`${webhooks.id} = ${webhookJobs.webhookId}`)
    .where(sql`${QUEUED_FOR_ENABLED} and ${webhookJobs.nextAttemptAt} > ${sql.placeholder('now')}`)
    .orderBy(webhookJobs.nextAttemptAt)
    .limit(1)
    .prepare(),
  resume: db
    .update(webhookJobs)
    .set({ nextAttemptAt: sql`${webhookJobs.createdAt}` })
    .where(
      sql`${webhookJobs.webhookId} = ${sql.placeholder('webhookId')} and ${webhookJobs.state} = 'queued'
        and ${webhookJobs.nextAttemptAt} <= ${sql.placeholder('now')}`,
    )
    .prepare(),
  claim: db
    .update(webhookJobs)
    .set({ state: 'delivering', leaseToken: sql`${sql.placeholder('leaseToken')}`, leaseExpiresAt: sql`${sql.placeholder('leaseExpiresAt')}` })
    .where(sql`${webhookJobs.id} = ${sql.placeholder('id')}`)
    .prepare(),
  retry: db
    .update(webhookJobs)
    .set({
      state: 'queued',
      attempts: sql`${sql.placeholder('attempts')}`,
      nextAttemptAt: sql`${sql.placeholder('nextAttemptAt')}`,
      leaseToken: null,
      leaseExpiresAt: null,
    })
    .where(HELD)
    .prepare(),
  finish: db
    .update(webhookJobs)
    .set({ state: sql`${sql.placeholder('state')}`, attempts: sql`${sql.placeholder('attempts')}`, leaseToken: null, leaseExpiresAt: null })
    .where(HELD)
    .prepare(),
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
    .where(sql`${webhookJobs.state} = 'queued' and ${webhookJobs.createdAt} <= ${sql.placeholder('before')}`)
    .prepare(),
  handBack: db.update(webhookJobs).set({ state: 'queued', leaseToken: null, leaseExpiresAt: null }).where(HELD).prepare(),
  expire: db
    .update(webhookJobs)
    .set({ state: 'dead', leaseToken: null, leaseExpiresAt: null })
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
  enabled: db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(sql`${webhooks.id} = ${sql.placeholder('id')} and ${webhooks.isEnabled} = 1`)
    .prepare(),
  autoDisable: db
    .update(webhooks)
    .set({ isEnabled: false, autoDisabledAt: sql`${sql.placeholder('now')}` })
    .where(sql`${webhooks.id} = ${sql.placeholder('id')} and ${webhooks.isEnabled} = 1`)
    .prepare(),
}));
