import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from '../../src/core/context.ts';
import { sqliteOf } from '../../db/client.ts';

/**
 * Tables a rejected request may legitimately change, left out of the snapshot. Nothing else is:
 * every other table (auth_epoch included: no request writes keys, workspaces or plans) must be
 * byte-for-byte the same after a rejected request. The API-key cache is process memory, not a table.
 */
export const TABLES_A_REJECTED_REQUEST_MAY_CHANGE: Record<string, string> = {
  // Rate limits: a failed request still counts (only a 429 consumes nothing).
  rate_limit_windows: 'a failed request still takes from its rate-limit buckets',
  // Idempotency: a POST with an Idempotency-Key that fails with a 4xx stores that
  // answer, so the same request replays it; a 5xx or 429 deletes the claim again.
  idempotency_keys: 'a rejected POST with an Idempotency-Key stores its 4xx answer for replay',
  // A valid key was used, whatever the request then came to (at most once a minute per key).
  api_key_uses: "a request with a valid key notes the key's last use before the request itself is judged",
};

/** One hash per table (and one for the media files on disk), so a difference names what changed. */
export type Snapshot = Record<string, string>;

/**
 * Snapshots of the stored data: every row of every table except the bookkeeping ones above (in
 * rowid order, so even a row deleted and inserted again counts as a change), plus the names and
 * sizes of the uploaded files.
 *
 * Hashing every table for each of thousands of requests would dominate the run, so temporary
 * triggers (on this connection only, never in the database file) note which tables any
 * INSERT, UPDATE or DELETE touched, and only those are hashed again. `full()` hashes everything
 * regardless, so a run can check at its end that the incremental snapshots missed nothing.
 */
export class StoredData {
  private readonly hashes: Snapshot = {};
  private readonly tables: string[];

  constructor(
    private readonly runtime: Runtime,
    private readonly mediaDir: string,
  ) {
    const sqlite = sqliteOf(runtime.db);
    this.tables = (
      sqlite
        .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`)
        .pluck()
        .all() as string[]
    ).filter((table) => !(table in TABLES_A_REJECTED_REQUEST_MAY_CHANGE));
    sqlite.exec('create temp table if not exists fuzz_written (name text primary key)');
    for (const table of this.tables) {
      for (const event of ['insert', 'update', 'delete']) {
        sqlite.exec(
          `create temp trigger if not exists "fuzz_${table}_${event}" after ${event} on main."${table}" begin insert or ignore into fuzz_written values ('${table}'); end`,
        );
      }
    }
    for (const table of this.tables) this.hashes[table] = this.hashTable(table);
  }

  private hashTable(table: string): string {
    const hash = createHash('sha256');
    for (const row of sqliteOf(this.runtime.db).prepare(`select * from "${table}" order by rowid`).raw().iterate())
      hash.update(JSON.stringify(row));
    return hash.digest('base64');
  }

  private hashFiles(): string {
    const files = readdirSync(this.mediaDir)
      .sort()
      .map((name) => `${name}:${statSync(join(this.mediaDir, name)).size}`);
    return createHash('sha256').update(files.join('\n')).digest('base64');
  }

  /** The snapshot now: the tables written since the last one hashed again, the others as they were. */
  take(): Snapshot {
    const sqlite = sqliteOf(this.runtime.db);
    const written = sqlite.prepare('select name from fuzz_written').pluck().all() as string[];
    sqlite.exec('delete from fuzz_written');
    for (const table of written) this.hashes[table] = this.hashTable(table);
    return { ...this.hashes, '(media files)': this.hashFiles() };
  }

  /** Every table hashed afresh, without the triggers' help. */
  full(): Snapshot {
    return {
      ...Object.fromEntries(this.tables.map((table) => [table, this.hashTable(table)])),
      '(media files)': this.hashFiles(),
    };
  }
}

/** The tables whose hash differs between two snapshots. */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  return Object.keys({ ...before, ...after }).filter((table) => before[table] !== after[table]);
}
