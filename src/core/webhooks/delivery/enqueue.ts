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
 * order from a shared cursor, in the caller's write transaction, so processes never enqueue an
 * event twice. Returns how many events it read (at most EVENTS_PER_BATCH: call again while it
 * reads that many).
 */
export async function enqueueEvents(runtime: Runtime): Promise<number> {
  const { db, clock } = runtime;
  const s = statements(db);
  const cursor = (await s.cursor.get())?.lastSeq ?? 0;
  const batch = await s.eventsAfter.all({ after: cursor, limit: EVENTS_PER_BATCH });
  if (batch.length === 0) return 0;
  const now = clock.now();
  const subscriptionsByWorkspace = new Map<string, Array<{ id: string; events: string[]; startAfterSeq: number }>>();
  await writeTransaction(db, async () => {
    for (const event of batch) {
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
    await s.advanceCursor.run({ lastSeq: batch.at(-1)!.seq });
  });
  return batch.length;
}

/** Enqueues every event written so far (a bounded number of batches per call). */
export async function enqueueAllEvents(runtime: Runtime): Promise<void> {
  for (let batch = 0; batch < BATCHES_PER_CALL && (await enqueueEvents(runtime)) === EVENTS_PER_BATCH; batch++);
}

const statements = preparedStatements((db) => ({
  cursor: db
    .select({ lastSeq: webhookEnqueueCursor.lastSeq })
    .from(webhookEnqueueCursor)
    .where(sql`${webhookEnqueueCursor.id} = 1`)
    .prepare(),
  advanceCursor: db
    .update(webhookEnqueueCursor)
    .set({ lastSeq: sql`${sql.placeholder('lastSeq')}` })
    .where(sql`${webhookEnqueueCursor.id} = 1`)
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
}));
