import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { sqliteOf, openDatabase, savepoint, writeTransaction } from '../../db/client.ts';

const dir = mkdtempSync(join(tmpdir(), 'temp-store-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// Savepoints inside a group commit keep their statement journals in memory: on disk, a batch of
// publishing runs wrote them to temporary files page by page (db/client.ts).
it('keeps temporary files in memory on every connection it opens', async () => {
  const db = openDatabase(join(dir, 'service.db'));
  expect(sqliteOf(db).pragma('temp_store', { simple: true })).toBe(2);
  sqliteOf(db).exec('create table t (id integer primary key, body text not null)');
  await writeTransaction(db, async () => {
    for (let i = 0; i < 2_000; i++)
      await savepoint(db, () => sqliteOf(db).prepare('insert into t (body) values (?)').run('x'.repeat(500)));
  });
  expect(sqliteOf(db).prepare('select count(*) as n from t').get()).toEqual({ n: 2_000 });
  await db.$store.close();
});
