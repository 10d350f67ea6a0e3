import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from '../../src/core/context.ts';
import { sql } from 'drizzle-orm';
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

/** How one engine hashes its tables: all of them, or those written since the last call to `written`. */
interface TableHashing {
  tables: string[];
  hash(tables: string[]): Promise<Record<string, string>>;
  /** The tables written since the last call, or every table when the engine cannot tell. */
  written(): Promise<string[]>;
}

/**
 * Snapshots of the stored data: every row of every table except the bookkeeping ones above, plus
 * the names and sizes of the uploaded files.
 *
 * On SQLite rows are hashed in rowid order, so even a row deleted and inserted again counts as a
 * change. Hashing every table for each of thousands of requests would dominate the run, so temporary
 * triggers (on this connection only, never in the database file) note which tables any INSERT,
 * UPDATE or DELETE touched, and only those are hashed again. On PostgreSQL (a pool of connections,
 * where a temporary trigger would see one of them) the server hashes every table in one statement,
 * rows in the order of their text (a row's place on disk moves on any UPDATE, even one that changes
 * nothing). `full()` hashes everything regardless, so a run can check at its end that the
 * incremental snapshots missed nothing.
 */
export class StoredData {
  private readonly hashes: Snapshot = {};

  private constructor(
    private readonly hashing: TableHashing,
    private readonly mediaDir: string,
  ) {}

  static async open(runtime: Runtime, mediaDir: string): Promise<StoredData> {
    const hashing = runtime.db.$store.engine === 'sqlite' ? sqliteHashing(runtime) : await postgresHashing(runtime);
    const stored = new StoredData(hashing, mediaDir);
    Object.assign(stored.hashes, await hashing.hash(hashing.tables));
    return stored;
  }

  private hashFiles(): string {
    const files = readdirSync(this.mediaDir)
      .sort()
      .map((name) => `${name}:${statSync(join(this.mediaDir, name)).size}`);
    return createHash('sha256').update(files.join('\n')).digest('base64');
  }

  /** The snapshot now: the tables written since the last one hashed again, the others as they were. */
  async take(): Promise<Snapshot> {
    Object.assign(this.hashes, await this.hashing.hash(await this.hashing.written()));
    return { ...this.hashes, '(media files)': this.hashFiles() };
  }

  /** Every table hashed afresh, without the triggers' help. */
  async full(): Promise<Snapshot> {
    return { ...(await this.hashing.hash(this.hashing.tables)), '(media files)': this.hashFiles() };
  }
}

const snapshotted = (tables: string[]) => tables.filter((table) => !(table in TABLES_A_REJECTED_REQUEST_MAY_CHANGE));

function sqliteHashing(runtime: Runtime): TableHashing {
  const sqlite = sqliteOf(runtime.db);
  const tables = snapshotted(
    sqlite
      .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`)
      .pluck()
      .all() as string[],
  );
  sqlite.exec('create temp table if not exists fuzz_written (name text primary key)');
  for (const table of tables) {
    for (const event of ['insert', 'update', 'delete']) {
      sqlite.exec(
        `create temp trigger if not exists "fuzz_${table}_${event}" after ${event} on main."${table}" begin insert or ignore into fuzz_written values ('${table}'); end`,
      );
    }
  }
  const hashTable = (table: string): string => {
    const hash = createHash('sha256');
    for (const row of sqlite.prepare(`select * from "${table}" order by rowid`).raw().iterate())
      hash.update(JSON.stringify(row));
    return hash.digest('base64');
  };
  return {
    tables,
    hash: async (some) => Object.fromEntries(some.map((table) => [table, hashTable(table)])),
    written: async () => {
      const written = sqlite.prepare('select name from fuzz_written').pluck().all() as string[];
      sqlite.exec('delete from fuzz_written');
      return written;
    },
  };
}

async function postgresHashing(runtime: Runtime): Promise<TableHashing> {
  const { db } = runtime;
  const listed = (await db.all(
    sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  )) as Array<{ name: string }>;
  const tables = snapshotted(listed.map(({ name }) => name));
  return {
    tables,
    hash: async (some) => {
      if (some.length === 0) return {};
      const each = some.map(
        (table) =>
          `select '${table}' as name, md5(coalesce(string_agg(r::text, E'\\n' order by r::text), '')) as hash from "${table}" r`,
      );
      const rows = (await db.all(sql.raw(each.join(' union all ')))) as Array<{ name: string; hash: string }>;
      return Object.fromEntries(rows.map(({ name, hash }) => [name, hash]));
    },
    written: async () => tables,
  };
}

/** The tables whose hash differs between two snapshots. */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  return Object.keys({ ...before, ...after }).filter((table) => before[table] !== after[table]);
}
