import { eq, sql } from 'drizzle-orm';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client.ts';
import { openPostgresDatabase } from '../../db/postgres.ts';
import { webhookJobs, webhooks, workspaces } from '../../db/schema/index.ts';
import type { Runtime } from '../../src/core/context.ts';
import { recordEvent } from '../../src/core/events/record-event.ts';
import { enqueueAllEvents } from '../../src/core/webhooks/delivery/enqueue.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

const NOW = new Date('2026-12-02T12:00:00.000Z');

/** A promise and the function that settles it, to hold a transaction open until the test lets it go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('webhook fan-out on PostgreSQL, several writers at once', () => {
  let database: TestDatabase;
  let db: Db;
  let runtime: Runtime;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openPostgresDatabase(database.url, { max: 4 });
    // Enqueueing reads only the database and the clock.
    runtime = { db, clock: { now: () => NOW } } as unknown as Runtime;
    await db
      .insert(workspaces)
      .values({ id: 'ws_1', orgId: 'org_1', name: 'One', plan: 'free', planStatus: 'active', createdAt: NOW })
      .run();
    await db
      .insert(webhooks)
      .values({
        id: 'whk_1',
        workspaceId: 'ws_1',
        url: 'https://receiver.example/hook',
        events: [],
        isEnabled: true,
        secretCiphertext: 'unused',
        startAfterSeq: 0,
        createdAt: NOW,
        updatedAt: NOW,
      })
      .run();
  });
  afterAll(async () => {
    await db?.$store.close();
    await database?.drop();
  });

  it('out-of-order commits: every event delivered, the lower seq committed last included', async () => {
    const record = (id: string) =>
      recordEvent(db, { id, workspaceId: 'ws_1', type: 'content.created', data: { id }, at: NOW });
    const late = gate();
    const lateWritten = gate();
    // The first writer takes the lower seq and stays open; the second takes the higher and commits.
    const first = db.$store.transaction(async () => {
      await record('evt_lower_seq');
      lateWritten.open();
      await late.opened;
    });
    await lateWritten.opened;
    await db.$store.transaction(() => record('evt_higher_seq'));
    // A pass while the lower seq is still uncommitted: it must not step past it.
    await db.$store.transaction(() => enqueueAllEvents(runtime)).finally(late.open);
    await first;
    const seqs = await db.all<{ id: string; seq: number }>(sql`select id, seq from events order by seq`);
    expect(seqs.map((row) => row.id)).toEqual(['evt_lower_seq', 'evt_higher_seq']);

    // An event is read once every transaction older than its own has ended, in any database of the
    // cluster (the snapshot's xmin): other test files' transactions may hold it back for a moment.
    const jobsOf = async () =>
      (
        await db
          .select({ eventId: webhookJobs.eventId })
          .from(webhookJobs)
          .where(eq(webhookJobs.webhookId, 'whk_1'))
          .all()
      )
        .map((job) => job.eventId)
        .sort();
    for (let pass = 0; pass < 100 && (await jobsOf()).length < 2; pass++) {
      await db.$store.transaction(() => enqueueAllEvents(runtime));
      await sleep(50);
    }
    expect(await jobsOf()).toEqual(['evt_higher_seq', 'evt_lower_seq']);
  });

  it('an event held back by an older transaction that writes no event: the pass says events are left', async () => {
    const older = gate();
    const olderHasXid = gate();
    // An older transaction with a transaction id of its own, writing anything but an event.
    const open = db.$store.transaction(async () => {
      await db.run(sql`select pg_current_xact_id()`);
      olderHasXid.open();
      await older.opened;
    });
    await olderHasXid.opened;
    await db.$store.transaction(() =>
      recordEvent(db, { id: 'evt_held_back', workspaceId: 'ws_1', type: 'content.created', data: {}, at: NOW }),
    );
    const heldBack = await db.$store.transaction(() => enqueueAllEvents(runtime)).finally(older.open);
    await open;
    // Nothing wakes the worker when the older transaction ends, so the answer is what makes it look again.
    expect(heldBack).toBe(true);

    const jobs = async () =>
      (await db.select({ eventId: webhookJobs.eventId }).from(webhookJobs).all()).map((job) => job.eventId);
    let left = true;
    for (let pass = 0; pass < 100 && left; pass++) {
      left = await db.$store.transaction(() => enqueueAllEvents(runtime));
      if (left) await sleep(50);
    }
    expect(left).toBe(false);
    expect(await jobs()).toContain('evt_held_back');
  });
});
