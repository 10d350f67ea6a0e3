import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client.ts';
import { TransactionRolledBack } from '../../db/engine/postgres-store.ts';
import { openPostgresDatabase } from '../../db/postgres.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

/** The PostgreSQL store's units: what commits, what rolls back, and what the caller hears of it. */
describe('units of the PostgreSQL store', () => {
  let database: TestDatabase;
  let db: Db;
  const count = async () => (await db.get<{ n: number }>(sql`select count(*) as n from job_ticks`))!.n;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openPostgresDatabase(database.url, { max: 2 });
  });
  afterAll(async () => {
    await db?.$store.close();
    await database?.drop();
  });

  it('reports a transaction that a failed statement aborted, even when the work swallowed the error', async () => {
    const before = await count();
    await expect(
      db.$store.transaction(async () => {
        await db.run(sql`insert into job_ticks (job, tick_at) values ('kept?', 1)`);
        await db.run(sql`select * from no_such_table`).catch(() => {});
      }),
    ).rejects.toBeInstanceOf(TransactionRolledBack);
    expect(await count()).toBe(before);
  });

  it('in a group commit, commits what failed work kept outside its savepoint, then throws the work`s own error', async () => {
    const before = await count();
    await expect(
      db.$store.inNextCommit(async () => {
        await db.run(sql`insert into job_ticks (job, tick_at) values ('kept', 1)`);
        await db.$store.savepoint(async () => {
          await db.run(sql`insert into job_ticks (job, tick_at) values ('undone', 1)`);
          throw new Error('the work failed');
        });
      }),
    ).rejects.toThrow('the work failed');
    expect(await count()).toBe(before + 1);
    // A statement that failed outside a savepoint aborted the whole transaction: nothing kept, and
    // the caller hears the statement's own error, not the rolled-back commit.
    await expect(
      db.$store.inNextCommit(async () => {
        await db.run(sql`insert into job_ticks (job, tick_at) values ('lost', 1)`);
        await db.run(sql`select * from no_such_table`);
      }),
    ).rejects.toThrow(/no_such_table/);
    expect(await count()).toBe(before + 1);
  });

  it('calls what waits for a commit once the unit has committed, so a read outside it finds the writes; never after a rollback', async () => {
    const seen: number[] = [];
    const readOutside = () => {
      void count().then((n) => seen.push(n));
    };
    const before = await count();
    let calledInside = false;
    await db.$store.transaction(async () => {
      await db.run(sql`insert into job_ticks (job, tick_at) values ('woken', 1)`);
      db.$store.whenCommitted(readOutside);
      db.$store.whenCommitted(() => (calledInside = db.$store.inUnit()));
    });
    expect(calledInside).toBe(false);
    await expect.poll(() => seen).toEqual([before + 1]);
    let rolledBackCalled = false;
    await expect(
      db.$store.transaction(async () => {
        db.$store.whenCommitted(() => (rolledBackCalled = true));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(rolledBackCalled).toBe(false);
    // Outside a unit: at once.
    let atOnce = false;
    db.$store.whenCommitted(() => (atOnce = true));
    expect(atOnce).toBe(true);
  });
});
