import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase, savepoint, writeTransaction, type Db } from '../../db/client.ts';

/** The SQLite store's units (db/engine/sqlite-store.ts): what joins a unit, what waits for it, what rolls back. */
describe('the SQLite store', () => {
  const open = async () => {
    const db = openDatabase(':memory:');
    await db.run(sql`create table notes (id integer primary key, text text not null)`);
    return db;
  };
  const texts = async (db: Db) =>
    (await db.all<{ text: string }>(sql`select text from notes order by id`)).map((row) => row.text);

  it("keeps another request's statement out of an open unit until it commits, across awaits", async () => {
    const db = await open();
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    const unit = writeTransaction(db, async () => {
      await db.run(sql`insert into notes (text) values ('inside')`);
      await paused;
      await db.run(sql`insert into notes (text) values ('still inside')`);
    });
    // Made outside the unit while it is open: it must not read the unit's uncommitted row.
    const seen = texts(db);
    const outsideWrite = db.run(sql`insert into notes (text) values ('outside')`);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await unit;
    expect(await seen).toEqual(['inside', 'still inside']);
    await outsideWrite;
    expect(await texts(db)).toEqual(['inside', 'still inside', 'outside']);
  });

  it('rolls a failed unit back whole, and lets the outside statements waiting on it run after', async () => {
    const db = await open();
    const failed = writeTransaction(db, async () => {
      await db.run(sql`insert into notes (text) values ('lost')`);
      throw new Error('broke');
    });
    const after = db.run(sql`insert into notes (text) values ('kept')`);
    await expect(failed).rejects.toThrow('broke');
    await after;
    expect(await texts(db)).toEqual(['kept']);
  });

  it('groups the work of one turn into one commit; a piece that fails in its savepoint fails alone', async () => {
    const db = await open();
    const store = db.$store;
    const pieces = [
      store.inNextCommit(() => db.run(sql`insert into notes (text) values ('one')`)),
      store.inNextCommit(() =>
        savepoint(db, async () => {
          await db.run(sql`insert into notes (text) values ('undone')`);
          throw new Error('refused');
        }),
      ),
      store.inNextCommit(async () => {
        // It sees the pieces before it, as if run alone after them.
        await db.run(sql`insert into notes (text) values ('two')`);
        return texts(db);
      }),
    ];
    const [one, refused, two] = await Promise.allSettled(pieces);
    expect(one.status).toBe('fulfilled');
    expect(refused).toMatchObject({ status: 'rejected', reason: new Error('refused') });
    expect(two).toEqual({ status: 'fulfilled', value: ['one', 'two'] });
    expect(await texts(db)).toEqual(['one', 'two']);
  });

  it('joins the unit already running when a transaction, a savepoint or a group commit is asked for inside it', async () => {
    const db = await open();
    await expect(
      writeTransaction(db, async () => {
        await db.run(sql`insert into notes (text) values ('outer')`);
        await writeTransaction(db, () => db.run(sql`insert into notes (text) values ('nested')`));
        await db.$store.inNextCommit(() => db.run(sql`insert into notes (text) values ('grouped')`));
        expect(db.$store.inUnit()).toBe(true);
        throw new Error('all of it goes');
      }),
    ).rejects.toThrow('all of it goes');
    expect(await texts(db)).toEqual([]);
    expect(db.$store.inUnit()).toBe(false);
  });
});
