import { sql } from 'drizzle-orm';
import { insertRow, preparedStatements, writeTransaction } from '../../../../db/client.ts';
import { events, webhookEnqueueCursor, webhookJobs, webhooks } from '../../../../db/schema/index.ts';
import type { Runtime } from '../../context.ts';
import { newId } from '../../ids.ts';

/** Outbox events read per call of enqueueEvents (one write transaction). */
const EVENTS_PER_BATCH = 500;
/** Batches enqueueAllEvents reads at most per call, so one call never runs unbounded. */
const BATCHES_PER_CALL = 20;

/**
 * Turns new outbox events into delivery jobs: one per event and matching subscription of its
 * workspace, disabled ones included (nothing is lost while disabled). A subscription only gets
 * events written after it was made; an empty `events` list matches every type. Reads the outbox in
 * commit order from a shared cursor on (xact, seq) (EngineSql.outboxAfter: on PostgreSQL an event
 * whose transaction may still be followed by one committing a lower seq waits for it), in one
 * write transaction (the caller's, when it runs in one), holding the enqueue lock, so processes never
 * enqueue an event twice. Returns how many events it read (at most EVENTS_PER_BATCH: call again
 * while it reads that many); 0 also when another process is enqueueing at this moment.
 */
export async function enqueueEvents(runtime: Runtime): Promise<number> {
  const { db, clock } = runtime;
  const s = statements(db);
  // Outside a unit, a look without the write lock first: a call with nothing new writes nothing.
  if (!db.$store.inUnit() && (await s.eventsAfter.all(after(await s.cursor.get(), 1))).length === 0) return 0;
  const now = clock.now();
  const subscriptionsByWorkspace = new Map<string, Array<{ id: string; events: string[]; startAfterSeq: number }>>();
  return writeTransaction(db, async () => {
    if (!(await db.$store.tryLock(ENQUEUE_LOCK))) return 0;
    // Read again under the lock: another process may have moved the cursor since.
    const batch = await s.eventsAfter.all(after(await s.cursor.get(), EVENTS_PER_BATCH));
    // Jobs are made in the order the events were written (seq), which commit order (the cursor's on
    // PostgreSQL) need not follow within a batch; on SQLite the two are one and this sort has nothing to do.
    for (const event of [...batch].sort((a, b) => a.seq - b.seq)) {
      let subscriptions = subscriptionsByWorkspace.get(event.workspaceId);
      if (!subscriptions)
        subscriptionsByWorkspace.set(
          event.workspaceId,
          (subscriptions = await s.subscriptionsOf.all({ workspaceId: event.workspaceId })),
        );
      for (const subscription of subscriptions) {
        if (event.seq <= subscription.startAfterSeq) continue;
        if (subscription.events.length > 0 && !subscription.events.includes(event.type)) continue;
        await insertRow(db, webhookJobs, {
          id: newId(),
          webhookId: subscription.id,
          workspaceId: event.workspaceId,
          eventId: event.id,
          state: 'queued',
          attempts: 0,
          nextAttemptAt: now,
          createdAt: event.createdAt,
        });
      }
    }
    const last = batch.at(-1);
    if (last) await s.advanceCursor.run({ lastSeq: last.seq, lastXact: last.xact ?? 0 });
    return batch.length;
  });
}

/** Held by the transaction that enqueues: on PostgreSQL two processes would otherwise read one cursor. */
const ENQUEUE_LOCK = 'webhook enqueue';

const after = (cursor: { lastSeq: number; lastXact: number } | undefined, limit: number) => ({
  afterSeq: cursor?.lastSeq ?? 0,
  afterXact: cursor?.lastXact ?? 0,
  limit,
});

/**
 * Enqueues every event written so far (a bounded number of batches per call). Answers whether
 * committed events are still left past the cursor: more than the call's batches, events another
 * process was enqueueing, or (on PostgreSQL) events held back behind a transaction still running.
 * Nothing wakes the caller when that transaction ends without writing an event, so it must look again.
 */
export async function enqueueAllEvents(runtime: Runtime): Promise<boolean> {
  for (let batch = 0; batch < BATCHES_PER_CALL && (await enqueueEvents(runtime)) === EVENTS_PER_BATCH; batch++);
  return (await statements(runtime.db).eventsLeft.get()) !== undefined;
}

const statements = preparedStatements((db) => ({
  cursor: db
    .select({ lastSeq: webhookEnqueueCursor.lastSeq, lastXact: webhookEnqueueCursor.lastXact })
    .from(webhookEnqueueCursor)
    .where(sql`${webhookEnqueueCursor.id} = 1`)
    .prepare(),
  advanceCursor: db
    .update(webhookEnqueueCursor)
    .set({ lastSeq: sql`${sql.placeholder('lastSeq')}`, lastXact: sql`${sql.placeholder('lastXact')}` })
    .where(sql`${webhookEnqueueCursor.id} = 1`)
    .prepare(),
  eventsAfter: db
    .select({
      seq: events.seq,
      xact: events.xact,
      id: events.id,
      workspaceId: events.workspaceId,
      type: events.type,
      createdAt: events.createdAt,
    })
    .from(events)
    .where(
      db.$store.sql.outboxAfter(
        { xact: sql`${events.xact}`, seq: sql`${events.seq}` },
        { xact: sql`${sql.placeholder('afterXact')}`, seq: sql`${sql.placeholder('afterSeq')}` },
      ),
    )
    .orderBy(db.$store.sql.outboxOrder({ xact: sql`${events.xact}`, seq: sql`${events.seq}` }))
    .limit(sql.placeholder('limit'))
    .prepare(),
  eventsLeft: db
    .select({ seq: events.seq })
    .from(events)
    .innerJoin(webhookEnqueueCursor, sql`${webhookEnqueueCursor.id} = 1`)
    .where(
      db.$store.sql.outboxPast(
        { xact: sql`${events.xact}`, seq: sql`${events.seq}` },
        { xact: sql`${webhookEnqueueCursor.lastXact}`, seq: sql`${webhookEnqueueCursor.lastSeq}` },
      ),
    )
    .limit(1)
    .prepare(),
  subscriptionsOf: db
    .select({ id: webhooks.id, events: webhooks.events, startAfterSeq: webhooks.startAfterSeq })
    .from(webhooks)
    .where(sql`${webhooks.workspaceId} = ${sql.placeholder('workspaceId')}`)
    .prepare(),
}));
