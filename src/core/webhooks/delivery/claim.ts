import { sql } from 'drizzle-orm';
import { type Db, preparedStatements, writeTransaction } from '../../../../db/client.ts';
import { prepareSql } from '../../../../db/engine/session.ts';
import { webhookJobs, webhooks } from '../../../../db/schema/index.ts';
import type { Config } from '../../config.ts';
import type { Runtime } from '../../context.ts';
import type { OutboxEvent } from '../envelope.ts';
import { expireJob, isExpired } from './expiry.ts';
import { letGoOfLost, queuesOf, releaseIfIdle, renewLease, takeOver, type HeldQueue } from './lease.ts';

/** A delivery handed to a slot, with everything its attempt needs. */
export interface DeliveryClaim {
  jobId: string;
  /** Where the job's row is (EngineSql.rowAddress: SQLite's rowid; null on PostgreSQL). */
  jobAddress: number | null;
  /** The attempt about to be made (1 to 6). */
  attempt: number;
  event: OutboxEvent;
  queue: HeldQueue;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'dead' | 'lease_lost' | 'handed_back';

/** No subscription gets more than a quarter of the slots, so one slow endpoint cannot hold up the others. */
const slotsPerSubscription = (config: Config): number => Math.max(1, Math.ceil(config.webhooks.concurrency / 4));

/**
 * Hands out up to `free` due deliveries of enabled subscriptions, the longest waiting subscription
 * first, each subscription's in queue order and at most a quarter of the slots to one. A
 * subscription is taken over when no other process holds it (or its holder's lease ran out); one
 * held by another process is left to it. A job older than 72 hours is abandoned here instead of sent.
 * A busy subscription's backlog is never walked: each subscription's queue has its own index.
 */
export async function claimDueDeliveries(runtime: Runtime, free: number): Promise<DeliveryClaim[]> {
  const { db, clock, config } = runtime;
  const claims: DeliveryClaim[] = [];
  if (free <= 0) return claims;
  const now = clock.now().getTime();
  const s = statements(db);
  const queues = queuesOf(db);
  const cap = slotsPerSubscription(config);
  await writeTransaction(db, async () => {
    for (const ready of await s.ready.all({ now })) {
      let queue = queues.get(ready.webhookId);
      if (queue) {
        letGoOfLost(runtime, queue, now);
        if (queue.inHand.size >= cap || !(await renewLease(runtime, queue, now))) continue;
      } else {
        queue = (await takeOver(runtime, ready, now)) ?? undefined;
        if (!queue) continue;
      }
      const room = Math.min(cap - queue.inHand.size, free - claims.length);
      for (let claim, taken = 0; taken < room && (claim = await handOut(runtime, queue, now)); taken++)
        claims.push(claim);
      await releaseIfIdle(runtime, queue);
      if (claims.length >= free) break;
    }
  });
  return claims;
}

/**
 * The next due job of a held queue, or null. Read ahead in batches, skipping the jobs already in a
 * slot; a job older than 72 hours is abandoned instead. Inside the caller's write transaction.
 */
export async function handOut(runtime: Runtime, queue: HeldQueue, now: number): Promise<DeliveryClaim | null> {
  if (!queue.sending) return null;
  for (;;) {
    if (queue.readAhead.length === 0) {
      // Another unit is reading ahead already: what it reads is handed out from there, by it and by
      // the passes its slots start, and a second read would line the same jobs up twice.
      if (queue.readingAhead) return null;
      letGoOfLost(runtime, queue, now);
      queue.readingAhead = true;
      let rows: DueJobRow[];
      try {
        rows = await statements(runtime.db).dueOf.all({
          webhookId: queue.webhookId,
          now,
          inHand: JSON.stringify([...queue.inHand.keys(), ...queue.recording]),
        });
      } finally {
        queue.readingAhead = false;
      }
      // Reversed, so handing out the oldest is a pop.
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        queue.readAhead.push({
          jobId: row.jobId,
          jobAddress: row.jobAddress,
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
    if (isExpired(job.createdAt, now)) {
      await expireJob(
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
    return { jobId: job.jobId, jobAddress: job.jobAddress, attempt: job.attempts + 1, event: job.event, queue };
  }
}

/**
 * A subscription enabled again resumes its queue oldest first: deliveries that came due while it
 * was disabled are lined up by the age of their event (their due time becomes the event's time,
 * which is past); retries still waiting for their delay keep it.
 */
export async function resumeDeliveries(db: Db, webhookId: string, now: Date): Promise<void> {
  await statements(db).resume.run({ webhookId, now: now.getTime() });
}

/** When the earliest queued delivery of an enabled subscription comes due after `now` (ms), or null. */
export async function nextDeliveryDueAfter(db: Db, now: Date): Promise<number | null> {
  return (await statements(db).nextDue.get({ now: now.getTime() }))?.due ?? null;
}

interface ReadyRow {
  webhookId: string;
  url: string;
  secretCiphertext: string;
  leaseExpiresAt: number | null;
  due: number;
}

interface DueJobRow {
  jobAddress: number | null;
  jobId: string;
  attempts: number;
  createdAt: number;
  workspaceId: string;
  eventId: string;
  eventType: string;
  eventData: string;
  eventCreatedAt: number;
}

/** A subscription's earliest queued job's due time. `webhooks.id` spelled out: a bare "id" would name the subquery's own column. */
const DUE = sql.raw(
  `(select min(j.next_attempt_at) from webhook_jobs j where j.webhook_id = webhooks.id and j.state = 'queued')`,
);

const statements = preparedStatements((db) => ({
  // One probe of webhook_jobs_queue_idx per enabled subscription (min over an index prefix). The
  // subquery is written twice, as SQLite evaluates an alias named in WHERE anyway and PostgreSQL takes
  // none there. On PostgreSQL the subscriptions' rows are the claiming unit's until it commits (their
  // leases are taken and renewed in it); those another process's claim holds are passed over.
  ready: prepareSql<ReadyRow, { now: number }>(
    db,
    sql`select id as "webhookId", url, secret_ciphertext as "secretCiphertext", lease_expires_at as "leaseExpiresAt",
       ${DUE} as due
     from webhooks
     where is_enabled = ${db.$store.sql.true} and ${DUE} <= ${sql.placeholder('now')}
     order by due${db.$store.sql.lockRowsSkipLocked}`,
  ),
  // Raw, as drizzle's row mapping cost more than the read; read once per 64 deliveries. A literal
  // LIMIT: a bound one makes SQLite prepare the statement again on every run (it plans for the
  // value; ~10 µs each). The jobs already in a slot, or being recorded, are still queued, so they are skipped.
  dueOf: prepareSql<DueJobRow, { webhookId: string; now: number; inHand: string }>(
    db,
    sql`select ${db.$store.sql.rowAddress('j')} as "jobAddress", j.id as "jobId", j.attempts, j.created_at as "createdAt",
       j.workspace_id as "workspaceId", e.id as "eventId", e.type as "eventType", e.data as "eventData",
       e.created_at as "eventCreatedAt"
     from webhook_jobs j join events e on e.id = j.event_id
     where j.webhook_id = ${sql.placeholder('webhookId')} and j.state = 'queued' and j.next_attempt_at <= ${sql.placeholder('now')}
       and j.id not in ${db.$store.sql.jsonArrayValues(sql`${sql.placeholder('inHand')}`)}
     order by j.next_attempt_at, j.id
     limit 64`,
  ),
  // One probe of webhook_jobs_queue_idx per enabled subscription, as `ready` makes: a queue index
  // over all subscriptions would be one more B-tree written by every enqueued job and every attempt.
  // `webhooks.id` spelled out, as in `ready`.
  nextDue: db
    .select({
      due: sql<number | null>`min((select min(j.next_attempt_at) from webhook_jobs j
        where j.webhook_id = webhooks.id and j.state = 'queued' and j.next_attempt_at > ${sql.placeholder('now')}))`,
    })
    .from(webhooks)
    .where(sql`${webhooks.isEnabled} = ${db.$store.sql.true}`)
    .prepare(),
  resume: db
    .update(webhookJobs)
    .set({ nextAttemptAt: sql`${webhookJobs.createdAt}` })
    .where(
      sql`${webhookJobs.webhookId} = ${sql.placeholder('webhookId')} and ${webhookJobs.state} = 'queued'
        and ${webhookJobs.nextAttemptAt} <= ${sql.placeholder('now')}`,
    )
    .prepare(),
}));
