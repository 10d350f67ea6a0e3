import { getTableColumns, is, sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SEEDED_PLANS } from '../../db/plans.ts';
import { migratePostgres, openPostgres, type PgDb } from '../../db/postgres.ts';
import * as schema from '../../db/schema-pg/index.ts';
import { ROOT } from '../helpers/subprocess.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

const migrations = readMigrationFiles({ migrationsFolder: join(ROOT, 'db/migrations-pg') });

let database: TestDatabase | undefined;
const pools: PgDb[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((db) => db.$client.end()));
  await database?.drop();
  database = undefined;
});

async function open(url: string): Promise<PgDb> {
  const db = await openPostgres(url, { max: 2 });
  pools.push(db);
  return db;
}

interface Child {
  ready: Promise<void>;
  go(): void;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** A process that opens the database, then migrates when `go()` is called. */
function startChild(url: string): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/postgres/fixtures/migrate-child.ts', url], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let signalReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.includes('ready')) signalReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      signalReady();
      resolve({ code, stdout, stderr });
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), done };
}

async function recordedMigrations(db: PgDb): Promise<{ hash: string; created_at: string }[]> {
  const result = await db.$client.query<{ hash: string; created_at: string }>(
    'select hash, created_at::text from drizzle.__drizzle_migrations order by id',
  );
  return result.rows;
}

const expectedRecords = migrations.map((m) => ({ hash: m.hash, created_at: String(m.folderMillis) }));

describe('migratePostgres', () => {
  it('applies each migration once when three processes start on an empty database at the same moment', async () => {
    database = await createTestDatabase({ empty: true });
    const children = [0, 1, 2].map(() => startChild(database!.url));
    await Promise.all(children.map((child) => child.ready));
    for (const child of children) child.go();
    const results = await Promise.all(children.map((child) => child.done));
    for (const result of results) {
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('migrated');
      expect(result.code).toBe(0);
    }
    const db = await open(database.url);
    expect(await recordedMigrations(db)).toEqual(expectedRecords);
    expect((await db.$client.query('select id, version::int from auth_epoch')).rows).toHaveLength(1);
  }, 60_000);

  it('applies each migration once when three pools of one process migrate at once, and again finds nothing to do', async () => {
    database = await createTestDatabase({ empty: true });
    const dbs = await Promise.all([0, 1, 2].map(() => open(database!.url)));
    await Promise.all(dbs.map((db) => migratePostgres(db)));
    expect(await recordedMigrations(dbs[0]!)).toEqual(expectedRecords);
    await migratePostgres(dbs[1]!);
    expect(await recordedMigrations(dbs[0]!)).toEqual(expectedRecords);
    const plans = await dbs[0]!.select().from(schema.plans).orderBy(schema.plans.name);
    expect(plans).toEqual([...SEEDED_PLANS].sort((a, b) => a.name.localeCompare(b.name)));
  }, 60_000);
});

/** Every table of db/schema-pg, as drizzle describes it. */
function schemaTables() {
  return Object.values(schema as Record<string, unknown>)
    .filter((value): value is PgTable => is(value, PgTable))
    .map((table) => ({ table, config: getTableConfig(table) }));
}

describe('a database after migratePostgres', () => {
  it('has exactly the tables, columns (types, nullability), indexes and foreign keys of db/schema-pg', async () => {
    database = await createTestDatabase({ empty: true });
    const db = await open(database.url);
    await migratePostgres(db);

    const columns = await db.$client.query<{
      table_name: string;
      column_name: string;
      type: string;
      nullable: boolean;
    }>(
      `select c.table_name, c.column_name, format_type(a.atttypid, a.atttypmod) as type, c.is_nullable = 'YES' as nullable
         from information_schema.columns c
         join pg_attribute a on a.attrelid = format('public.%I', c.table_name)::regclass and a.attname = c.column_name
        where c.table_schema = 'public'`,
    );
    const actual = columns.rows
      .map((r) => `${r.table_name}.${r.column_name} ${r.type}${r.nullable ? '' : ' not null'}`)
      .sort();
    const expected = schemaTables()
      .flatMap(({ config }) =>
        config.columns.map((c) => `${config.name}.${c.name} ${c.getSQLType()}${c.notNull ? ' not null' : ''}`),
      )
      .sort();
    expect(actual).toEqual(expected);

    // Primary keys are compared with the columns' nullability; their index names are PostgreSQL's own.
    const indexes = await db.$client.query<{ indexname: string }>(
      `select i.relname as indexname from pg_index x
         join pg_class i on i.oid = x.indexrelid join pg_namespace n on n.oid = i.relnamespace
        where n.nspname = 'public' and not x.indisprimary`,
    );
    const expectedIndexes = schemaTables()
      .flatMap(({ table, config }) => [
        ...config.indexes.map((index) => index.config.name),
        ...Object.values(getTableColumns(table)).flatMap((c) => (c.isUnique && c.uniqueName ? [c.uniqueName] : [])),
      ])
      .sort();
    expect(indexes.rows.map((r) => r.indexname).sort()).toEqual(expectedIndexes);

    const foreignKeys = await db.$client.query<{ name: string; on_delete: string }>(
      `select c.conname as name, c.confdeltype as on_delete from pg_constraint c
         join pg_namespace n on n.oid = c.connamespace where n.nspname = 'public' and c.contype = 'f'`,
    );
    const deleteRules: Record<string, string> = {
      a: 'no action',
      r: 'restrict',
      c: 'cascade',
      n: 'set null',
      d: 'set default',
    };
    expect(foreignKeys.rows.map((r) => `${r.name} on delete ${deleteRules[r.on_delete]}`).sort()).toEqual(
      schemaTables()
        .flatMap(({ config }) =>
          config.foreignKeys.map((fk) => `${fk.getName()} on delete ${fk.onDelete ?? 'no action'}`),
        )
        .sort(),
    );
  }, 30_000);

  it('moves the auth epoch on every write to api_keys, workspaces and plans, as the SQLite triggers do', async () => {
    database = await createTestDatabase({ empty: true });
    const db = await open(database.url);
    await migratePostgres(db);
    const version = async () => (await db.select().from(schema.authEpoch)).map((row) => row.version);
    const start = (await version())[0]!;
    const now = new Date(1_767_225_600_000);
    await db
      .insert(schema.workspaces)
      .values({ id: 'ws-1', orgId: 'org-1', name: 'Acme', plan: 'pro', planStatus: 'active', createdAt: now });
    expect(await version()).toEqual([start + 1]);
    await db.insert(schema.apiKeys).values({
      id: 'key-1',
      workspaceId: 'ws-1',
      keyHash: 'h',
      displayPrefix: 'np_live_Ab',
      lastFour: 'abcd',
      createdAt: now,
    });
    await db.update(schema.apiKeys).set({ revokedAt: now });
    await db
      .update(schema.plans)
      .set({ platformsLimit: 3 })
      .where(sql`name = 'nope'`);
    expect(await version()).toEqual([start + 3]);
    await db.delete(schema.workspaces);
    // The workspace, and its key by the cascade.
    expect(await version()).toEqual([start + 5]);
    const [row] = await db.select().from(schema.webhookEnqueueCursor);
    expect(row).toEqual({ id: 1, lastSeq: 0, lastXact: 0 });
    const [workspace] = await db
      .insert(schema.workspaces)
      .values({ id: 'ws-2', orgId: 'org-2', name: 'B', plan: 'free', planStatus: 'active', createdAt: now })
      .returning();
    expect(workspace!.createdAt).toEqual(now);
  }, 30_000);
});
