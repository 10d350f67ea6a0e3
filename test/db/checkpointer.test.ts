import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { startBackgroundCheckpoints } from '../../db/checkpointer.ts';
import { sqliteOf, openDatabase, type Db } from '../../db/client.ts';
import { events } from '../../db/schema/index.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { onSqliteOnly } from '../helpers/sqlite-only.ts';

const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const framesInWal = (db: Db): number =>
  (sqliteOf(db).pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0].log;

onSqliteOnly.it(
  'takes SQLite checkpoints off the serving connection and leaves the WAL rewound when stopped',
  async () => {
    const file = join(dir, 'service.db');
    const runtime = await testRuntime({ file });
    const ws = await makeWorkspace(runtime);
    const checkpointer = startBackgroundCheckpoints(runtime.db, 60_000);
    expect(sqliteOf(runtime.db).pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    for (let i = 0; i < 300; i += 1) {
      await runtime.db
        .insert(events)
        .values({
          id: `evt_${i}`,
          workspaceId: ws.workspace.id,
          type: 'content.created',
          data: { i },
          createdAt: new Date(),
        })
        .run();
    }
    await checkpointer.stop();
    // The final RESTART copied every frame into the database and rewound the log, so the next
    // write starts the WAL over instead of appending to hundreds of frames.
    await runtime.db
      .insert(events)
      .values({
        id: 'evt_after',
        workspaceId: ws.workspace.id,
        type: 'content.updated',
        data: {},
        createdAt: new Date(),
      })
      .run();
    expect(framesInWal(runtime.db)).toBeLessThan(10);
    await runtime.db.$store.close();
    const reopened = openDatabase(file);
    expect(await reopened.select().from(events).all()).toHaveLength(301);
    await reopened.$store.close();
  },
);
