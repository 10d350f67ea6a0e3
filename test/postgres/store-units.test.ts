import { sql } from 'drizzle-orm';
import pg from 'pg';
import { prepareText } from '../../db/engine/session.ts';
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

  it('a step that fails as the first thing of its unit leaves nothing, and the unit goes on and commits what follows', async () => {
    const before = await count();
    const jobs = async () =>
      (await db.all<{ job: string }>(sql`select job from job_ticks where job like 'first-%' order by job`)).map(
        (row) => row.job,
      );
    await db.$store.transaction(async () => {
      // Nothing ran before it, so it is the transaction itself: undone by beginning again.
      await expect(
        db.$store.savepoint(async () => {
          await db.run(sql`insert into job_ticks (job, tick_at) values ('first-undone', 1)`);
          // A savepoint inside it is a real one, undone with it.
          await db.$store.savepoint(() => db.run(sql`insert into job_ticks (job, tick_at) values ('first-inner', 1)`));
          expect(await db.$store.tryLock('first-step-lock')).toBe(true);
          throw new Error('the step failed');
        }),
      ).rejects.toThrow('the step failed');
      await db.run(sql`insert into job_ticks (job, tick_at) values ('first-kept', 1)`);
      // Its advisory lock went with it: another connection takes it while this unit is still open.
      const other = new pg.Client({ connectionString: database.url });
      await other.connect();
      try {
        const { rows } = await other.query<{ locked: boolean }>(
          "select pg_try_advisory_lock(hashtext('first-step-lock')) as locked",
        );
        expect(rows[0]?.locked).toBe(true);
      } finally {
        await other.end();
      }
    });
    expect(await jobs()).toEqual(['first-kept']);
    expect(await count()).toBe(before + 1);
    // The same after a statement that failed on the server (the transaction was aborted, not only the work).
    await db.$store.transaction(async () => {
      await expect(
        db.$store.savepoint(() => db.run(sql`insert into job_ticks (job, tick_at) values (null, 1)`)),
      ).rejects.toThrow();
      await db.run(sql`insert into job_ticks (job, tick_at) values ('first-after-failure', 1)`);
    });
    expect(await jobs()).toEqual(['first-after-failure', 'first-kept']);
  });

  it('sends a batch of one prepared statement at once inside a unit; one failing row undoes the batch with its savepoint', async () => {
    const insert = prepareText<{ job: string; at: number }>(
      db,
      'insert into job_ticks (job, tick_at) values (@job, @at)',
    );
    const before = await count();
    await db.$store.transaction(async () => {
      await db.run(sql`insert into job_ticks (job, tick_at) values ('batch-before', 1)`);
      expect(await insert.runEach([1, 2, 3].map((i) => ({ job: `batch-${i}`, at: i })))).toBe(3);
      await expect(
        db.$store.savepoint(() =>
          insert.runEach([
            { job: 'batch-4', at: 4 },
            { job: null as unknown as string, at: 5 },
            { job: 'batch-6', at: 6 },
          ]),
        ),
      ).rejects.toThrow();
    });
    expect(await count()).toBe(before + 4);
    // Outside a unit each row commits on its own, in order.
    expect(await insert.runEach([{ job: 'batch-7', at: 7 }])).toBe(1);
    expect(await count()).toBe(before + 5);
  });

  it('runs a statement prepared in the code as a named prepared statement, parsed once per connection', async () => {
    const read = prepareText<{ job: string }, { n: number }>(
      db,
      'select count(*) as n from job_ticks where job = @job',
    );
    const named = await db.$store.transaction(async () => {
      await read.get({ job: 'x' });
      await read.get({ job: 'y' });
      return db.all<{ statement: string }>(sql`select statement from pg_prepared_statements`);
    });
    expect(named.filter((row) => row.statement.includes('where job = $1'))).toHaveLength(1);
    // A statement built for one call is not kept on the server.
    expect(named.some((row) => row.statement.includes('pg_prepared_statements'))).toBe(false);
  });

  it('runs statements outside units on two shared connections, each failing alone, and replaces one the server cut', async () => {
    const pidOutside = () => db.get<{ pid: number }>(sql`select pg_backend_pid() as pid`).then((row) => row!.pid);
    const pids = new Set(await Promise.all(Array.from({ length: 20 }, pidOutside)));
    expect(pids.size).toBeGreaterThanOrEqual(1);
    expect(pids.size).toBeLessThanOrEqual(2);
    // Sent in one write on one connection, still each a transaction of its own.
    const [first, failed, last] = await Promise.allSettled([
      db.get(sql`select 1 as one`),
      db.get(sql`select * from no_such_table`),
      db.get(sql`select 2 as two`),
    ]);
    expect(first).toEqual({ status: 'fulfilled', value: { one: 1 } });
    expect(failed.status).toBe('rejected');
    expect(last).toEqual({ status: 'fulfilled', value: { two: 2 } });

    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [[...pids]]);
    } finally {
      await admin.end();
    }
    // The cut is heard as the connection's error event; the next statement opens a new connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await pidOutside();
    expect(pids.has(after)).toBe(false);
  });
});
