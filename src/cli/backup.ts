import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { sqliteOf, type Db } from '../../db/client.ts';
import { fieldError, ServiceError } from '../core/errors.ts';
import { randomBase62 } from '../core/ids.ts';

export interface BackupResult {
  /** The absolute path of the copy. */
  file: string;
  bytes: number;
  pages: number;
}

/**
 * Copies the live database into `target` with SQLite's online backup API, while other processes
 * (the server, workers) keep writing. The whole copy is taken in one step, so it is one read
 * transaction: a consistent snapshot, which in WAL mode holds no writer back. Copied page by page
 * in several steps instead, every commit by another process in between would restart it, and a
 * busy server could keep it from ever finishing.
 *
 * A backup never overwrites a file (the target could be the live database, or yesterday's good
 * copy); it is written under a temporary name beside the target and renamed once complete, so a
 * copy cut short never sits under the name an operator would restore from.
 */
export async function backupDatabase(db: Db, target: string): Promise<BackupResult> {
  refuseBackupOnPostgres(db);
  const file = resolve(target);
  const refuseExisting = () => {
    if (existsSync(file)) throw fieldError('to', `${target} already exists; a backup never overwrites a file.`);
  };
  refuseExisting();
  const dir = dirname(file);
  if (!isDirectory(dir)) throw fieldError('to', `Cannot write ${target}: the directory ${dir} does not exist.`);
  const partial = join(dir, `.${basename(file)}.${randomBase62(8)}.partial`);
  try {
    // The copy holds what the database holds: made 0600 before SQLite writes it (which would make it
    // 0644), so it is never readable by others, not even while it is being written.
    writeFileSync(partial, '', { mode: 0o600, flag: 'wx' });
    const { totalPages } = await sqliteOf(db).backup(partial, { progress: () => ALL_REMAINING_PAGES });
    refuseExisting();
    renameSync(partial, file);
    return { file, bytes: statSync(file).size, pages: totalPages };
  } catch (error) {
    for (const leftover of [partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`]) {
      rmSync(leftover, { force: true });
    }
    if (error instanceof ServiceError) throw error;
    throw fieldError('to', `Cannot write ${target}: ${(error as Error).message}`);
  }
}

/**
 * On PostgreSQL `admin backup` answers how to back it up instead: an operator's mistake of tool, not
 * of a field, so the advice is the whole message (and comes before any complaint about `--to`).
 */
export function refuseBackupOnPostgres(db: Db): void {
  if (db.$store.engine === 'postgres') throw new ServiceError('invalid_body', POSTGRES_BACKUP_ADVICE);
}

/** What `admin backup` answers on PostgreSQL, whose own tools copy a live database better than a service could. */
export const POSTGRES_BACKUP_ADVICE =
  "This service runs on PostgreSQL: back it up with PostgreSQL's own tools, for example " +
  '`pg_dump --format=custom --file=service.dump "$DATABASE_URL"` (restore with `pg_restore --dbname=<empty database> service.dump`), ' +
  "or your provider's snapshots and point-in-time recovery.";

/** The largest step better-sqlite3 takes: more than any database has pages. */
const ALL_REMAINING_PAGES = 0x7fffffff;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
