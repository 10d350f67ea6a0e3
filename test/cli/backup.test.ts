import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_BACKUP_ADVICE } from '../../src/cli/backup.ts';
import { TEST_ENGINE } from '../helpers/runtime.ts';
import { onSqliteOnly } from '../helpers/sqlite-only.ts';
import { runEntry, startEntry, tempDataDir, type RunningProcess } from '../helpers/subprocess.ts';

const SLOW = 120_000;
const KEY_LINE = /API key \(shown once[^\n]*?(np_live_[0-9A-Za-z]+)/;
const LISTENING = /Listening on (http:\/\/127\.0\.0\.1:(\d+))/;
const ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

/** `admin backup --to FILE`: an online copy (SQLite's backup API) of the database of a server that keeps writing. */
onSqliteOnly.describe('admin backup on SQLite (subprocess)', () => {
  const data = tempDataDir('backup-live');
  const restored = tempDataDir('backup-restored');
  const running: RunningProcess[] = [];
  const env = (dir: string) => ({
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    ENCRYPTION_KEY,
    RATE_LIMIT_WRITE: '100000',
    RATE_LIMIT_READ: '100000',
  });
  const serve = (dir: string) => {
    const proc = startEntry(['serve'], env(dir));
    running.push(proc);
    return proc;
  };
  afterAll(async () => {
    for (const proc of running) await proc.stop();
    data.remove();
    restored.remove();
  });

  it(
    'taken while a load writes, the copy passes integrity_check and serves the rows written before it as DATA_DIR',
    async () => {
      const live = serve(data.dir);
      const [, url] = await live.waitForOutput(LISTENING, 45_000);
      const key = live.stdout().match(KEY_LINE)![1]!;
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

      // Four writers in a loop, each POST awaited before the next; ids in order of their 201.
      const written: string[] = [];
      let writing = true;
      let failures = 0;
      const writer = async (n: number) => {
        for (let i = 0; writing; i++) {
          const res = await fetch(`${url}/api/v1/content`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ caption: `load ${n}.${i}`, hashtags: ['backup'] }),
          });
          if (res.status === 201) written.push(((await res.json()) as { id: string }).id);
          else failures++;
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      while (written.length < 50) await new Promise((r) => setTimeout(r, 20));

      const target = join(data.dir, 'backups', 'copy.db');
      mkdirSync(join(data.dir, 'backups'));
      const before = [...written];
      const backup = await runEntry(['admin', 'backup', '--to', target, '--json'], env(data.dir), 60_000);
      const duringBackup = written.length - before.length;
      writing = false;
      await Promise.all(writers);
      expect(backup.code, backup.stderr + backup.stdout).toBe(0);
      expect(failures).toBe(0);
      // The load really ran across the backup, not only before it.
      expect(duringBackup).toBeGreaterThan(0);
      const answer = JSON.parse(backup.stdout);
      expect(answer).toEqual({ file: target, size_bytes: expect.any(Number) });
      // Only the copy is left: the temporary file it was written under is renamed away.
      expect(readdirSync(join(data.dir, 'backups'))).toEqual(['copy.db']);

      const copy = new Database(target, { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        const rows = copy.prepare('select count(*) as n from content').get() as { n: number };
        expect(rows.n).toBeGreaterThanOrEqual(before.length);
        expect(rows.n).toBeLessThanOrEqual(written.length);
      } finally {
        copy.close();
      }
      expect(await live.stop()).toBe(0);

      // Restored: the copy as the database file of a new data directory, the same encryption key.
      copyFileSync(target, join(restored.dir, 'service.db'));
      const second = serve(restored.dir);
      const [, secondUrl] = await second.waitForOutput(LISTENING, 45_000);
      expect(second.stdout()).not.toMatch(/API key/);
      const listed = new Set<string>();
      let cursor: string | null = null;
      do {
        const res = await fetch(`${secondUrl}/api/v1/content?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
          headers,
        });
        expect(res.status).toBe(200);
        const page = (await res.json()) as { data: Array<{ id: string }>; next_cursor: string | null };
        for (const item of page.data) listed.add(item.id);
        cursor = page.next_cursor;
      } while (cursor);
      for (const id of before) expect(listed.has(id), id).toBe(true);
      expect(await second.stop()).toBe(0);
    },
    SLOW,
  );

  it(
    'refuses an existing file and a missing directory with one plain line and a non-zero exit',
    async () => {
      const existing = join(restored.dir, 'taken.db');
      writeFileSync(existing, 'keep me');
      const refused = await runEntry(['admin', 'backup', '--to', existing], { DATA_DIR: data.dir });
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toMatch(/taken\.db already exists; a backup never overwrites a file/);
      expect(refused.stderr).not.toMatch(/\n\s+at /);

      const missing = join(restored.dir, 'no', 'such', 'dir', 'copy.db');
      const json = await runEntry(['admin', 'backup', '--to', missing, '--json'], { DATA_DIR: data.dir });
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout).error).toMatchObject({
        code: 'invalid_body',
        message: expect.stringMatching(/directory .* does not exist/),
      });
      expect(existsSync(missing)).toBe(false);

      const noTarget = await runEntry(['admin', 'backup'], { DATA_DIR: data.dir });
      expect(noTarget.code).toBe(1);
      expect(noTarget.stderr).toContain('--to is required');
    },
    SLOW,
  );
});

/**
 * On PostgreSQL there is no file to copy: `admin backup` answers how to back the database up with
 * PostgreSQL's own tools, as one plain error and a non-zero exit, and writes nothing.
 */
describe.skipIf(TEST_ENGINE !== 'postgres')('admin backup on PostgreSQL (subprocess)', () => {
  const data = tempDataDir('backup-postgres');
  afterAll(() => data.remove());

  it(
    'answers the pg_dump advice as one plain line (or one JSON error) and exits 1, writing no file',
    async () => {
      const target = join(data.dir, 'copy.db');
      const plain = await runEntry(['admin', 'backup', '--to', target], { DATA_DIR: data.dir });
      expect(plain.code, plain.stderr + plain.stdout).toBe(1);
      expect(plain.stderr.trim()).toBe(POSTGRES_BACKUP_ADVICE);
      expect(plain.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(target)).toBe(false);

      const json = await runEntry(['admin', 'backup', '--to', target, '--json'], { DATA_DIR: data.dir });
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'invalid_body', message: POSTGRES_BACKUP_ADVICE });
      expect(existsSync(target)).toBe(false);

      // Without --to the advice still comes first: no target would help.
      const noTarget = await runEntry(['admin', 'backup'], { DATA_DIR: data.dir });
      expect(noTarget.code).toBe(1);
      expect(noTarget.stderr.trim()).toBe(POSTGRES_BACKUP_ADVICE);
    },
    SLOW,
  );
});
