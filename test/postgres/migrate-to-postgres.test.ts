import Database from 'better-sqlite3';
import { getTableName, is, max } from 'drizzle-orm';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { join } from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOf } from '../../db/client.ts';
import { copySqliteToPostgres } from '../../db/copy-to-postgres.ts';
import { migratePostgres, openPostgres, openPostgresDatabase } from '../../db/postgres.ts';
import * as schema from '../../db/schema/index.ts';
import { migrateToPostgres } from '../../src/cli/migrate-to-postgres.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { Runtime } from '../../src/core/context.ts';
import { resolveAccessToken } from '../../src/core/oauth/grants.ts';
import { resolveSession, sessionCookieName, startSession } from '../../src/core/people/sessions.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { readTokens } from '../../src/core/social-accounts/tokens.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { webhookDeliveryJob } from '../../src/jobs/webhook-delivery.ts';
import { makeContent, makeWebhook, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer } from '../helpers/http.ts';
import { eventually } from '../helpers/eventually.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { createTestDatabase, databaseUrl, postgresServerUrl, type TestDatabase } from '../helpers/postgres.ts';
import { connectAccounts, connectLiveAccount, publish } from '../helpers/publishing.ts';
import { TEST_ENCRYPTION_KEY, testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { runEntry, tempDataDir, type Finished } from '../helpers/subprocess.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/** Given in every target URL: the test server trusts the connection, so it is checked only for never being printed. */
const PASSWORD = 'migrate-to-postgres-pw-7Qx';
const ENV = {
  ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  LOG_LEVEL: 'warn',
};
const LIVE_TOKENS = {
  accessToken: 'live-access-token-1',
  refreshToken: 'live-refresh-token-1',
  scopes: ['tweet.write'],
};

const tables = (Object.values(schema) as unknown[]).filter((value): value is SQLiteTable => is(value, SQLiteTable));
const withPassword = (database: TestDatabase) =>
  databaseUrl(postgresServerUrl(), database.name, { user: new URL(postgresServerUrl()).username, password: PASSWORD });

/** A value with its objects' keys sorted: jsonb keeps an object's keys in an order of its own. */
const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : value !== null && typeof value === 'object' && !(value instanceof Date)
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([key, inner]) => [key, sortedKeys(inner)]),
        )
      : value;

/** Every row of every table, as core reads it (the SQLite schema on either engine), in a stable order. */
async function everything(runtime: Runtime): Promise<Map<string, string[]>> {
  const all = new Map<string, string[]>();
  for (const table of tables) {
    // events.xact: null on SQLite, 0 for a copied event on PostgreSQL (db/copy-to-postgres.ts).
    const rows = (await runtime.db.select().from(table).all()).map((row) =>
      table === schema.events ? { ...row, xact: null } : row,
    );
    all.set(getTableName(table), rows.map((row) => JSON.stringify(sortedKeys(row))).sort());
  }
  return all;
}

/** The tables whose rows differ, with the first row that differs on each side. */
async function differences(a: Runtime, b: Runtime): Promise<Record<string, [string?, string?]>> {
  const [left, right] = [await everything(a), await everything(b)];
  const differing: Record<string, [string?, string?]> = {};
  for (const [table, rows] of left) {
    if (table === 'auth_epoch') continue;
    const other = right.get(table)!;
    const i = rows.findIndex((row, index) => row !== other[index]);
    if (i >= 0 || rows.length !== other.length) {
      const at = i >= 0 ? i : Math.min(rows.length, other.length);
      differing[table] = [rows[at], other[at]];
    }
  }
  return differing;
}

async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

function migrateCommand(dir: string, url: string): Promise<Finished> {
  return runEntry(['admin', 'migrate-to-postgres', '--to', url], { DATA_DIR: dir, ...ENV }, 90_000);
}

describe('admin migrate-to-postgres', () => {
  const data = tempDataDir('migrate-to-postgres');
  const file = join(data.dir, 'service.db');
  let source: TestRuntime;
  let ws: TestWorkspace;
  let receiver: Receiver;
  let signingSecret: string;
  let sessionToken: string;
  let accessToken: string;
  let liveAccountId: string;
  let publishedId: string;
  const databases: TestDatabase[] = [];
  const newDatabase = async () => {
    const database = await createTestDatabase({ empty: true });
    databases.push(database);
    return database;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    source = await testRuntime({ file, env: { DATA_DIR: data.dir, ...ENV }, start: new Date().toISOString() });
    ws = await makeWorkspace(source, { plan: 'pro' });
    const other = await makeWorkspace(source);
    signingSecret = (await makeWebhook(source, ws.workspace, { url: `${receiver.url}/hook` })).signing_secret;
    await connectAccounts(source, ws.workspace, ['linkedin']);
    const item = await makeContent(source, ws.workspace, {
      caption: 'Published before the move',
      content_type: 'text_only',
      target_platforms: ['linkedin'],
    });
    await publish(source, ws.workspace, item.id);
    const outcome = await drain(source, publishingJob(source));
    expect(outcome, JSON.stringify(await source.db.select().from(schema.publishAttempts).all())).toEqual(['published']);
    publishedId = item.id;
    await makeContent(source, other.workspace, { caption: 'Another workspace, a draft' });
    await drain(source, webhookDeliveryJob(source));
    expect(receiver.requests.length).toBeGreaterThan(0);
    const person = await makePerson(source, ws.workspace.id, 'admin');
    sessionToken = await startSession(source, person.userId, ws.workspace.id);
    ({ accessToken } = await issueTestToken(
      source,
      ws.workspace.id,
      ['read', 'write'],
      'Moving client',
      person.userId,
    ));
    liveAccountId = (
      await connectLiveAccount(
        source,
        other.workspace,
        'twitter',
        { ...LIVE_TOKENS, expiresAt: new Date(source.clock.now().getTime() + 3_600_000) },
        { username: 'live_mover' },
      )
    ).id;
  }, 60_000);

  afterAll(async () => {
    await receiver?.close();
    await source?.db.$store.close();
    for (const database of databases) await database.drop();
    data.remove();
  });

  it('copies every row into an empty database, which then serves the same keys, sessions, secrets and tokens', async () => {
    const target = await newDatabase();
    const run = await migrateCommand(data.dir, withPassword(target));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
    expect(run.stdout).toMatch(
      /Copied \d+ rows in \d+ tables from .*service\.db to postgres:\/\/.*:\*\*\*@.*; every table's row count matches\./,
    );
    // A progress line per table, parents before the tables that point to them.
    const progress = run.stderr.split('\n').filter((line) => /^ {2}\w+: \d+ rows?/.test(line));
    expect(progress.length).toBe(tables.length);
    const position = (table: string) => progress.findIndex((line) => line.startsWith(`  ${table}:`));
    expect(position('workspaces')).toBeGreaterThan(position('plans'));
    expect(position('publish_runs')).toBeGreaterThan(position('content'));
    expect(position('webhook_deliveries')).toBeGreaterThan(position('webhooks'));

    // The auth epoch arrives as the source's. Opening a database seeds the plans, which moves it (on
    // either engine), so it is read before the copy is opened and left out of the comparison below.
    const epochOf = async (runtime: Runtime) => (await runtime.db.select().from(schema.authEpoch).all())[0]!.version;
    const copied = await withPool(target.url, (pool) =>
      pool.query<{ version: number }>('select version::int as version from auth_epoch'),
    );
    expect(copied.rows).toEqual([{ version: await epochOf(source) }]);

    const clock = new ManualClock(source.clock.now().toISOString());
    const config = loadConfig({ ...ENV, DATABASE_URL: target.url });
    const copy = await openRuntime({ config, clock });
    const server = await startTestServer(copy);
    try {
      // Same rows in every table, values read back alike (booleans, JSON, instants) on the two engines.
      expect(await differences(source, copy)).toEqual({});

      const listed = await call(server, 'GET', '/api/v1/content', { headers: ws.headers });
      expect(listed.status).toBe(200);
      const published = listed.body.data.find((entry: { id: string }) => entry.id === publishedId);
      expect(published.status).toBe('published');

      const signedIn = await resolveSession(copy, sessionToken);
      expect(signedIn?.workspace.id).toBe(ws.workspace.id);
      const dashboard = await server.request('/app', {
        headers: { cookie: `${sessionCookieName(config)}=${sessionToken}` },
        redirect: 'manual',
      });
      expect(dashboard.status).toBe(200);

      const grant = await resolveAccessToken(copy, accessToken);
      expect(grant).not.toBeInstanceOf(Error);
      await expect(readTokens(copy, liveAccountId)).resolves.toMatchObject({
        accessToken: LIVE_TOKENS.accessToken,
        refreshToken: LIVE_TOKENS.refreshToken,
      });

      // New rows take identities past the copied ones, and the webhook is signed with its old secret.
      const lastSeq = async (runtime: Runtime) =>
        (await runtime.db
          .select({ seq: max(schema.events.seq) })
          .from(schema.events)
          .get())!.seq!;
      const seqBefore = await lastSeq(copy);
      const created = await call(server, 'POST', '/api/v1/content', {
        headers: ws.headers,
        body: { caption: 'Written after the move' },
      });
      expect(created.status).toBe(201);
      expect(await lastSeq(copy)).toBeGreaterThan(seqBefore);
      // The fan-out takes an event once every transaction older than it has ended, on the whole
      // server (other tests' included): drained until it is there.
      const deliveredHere = () => receiver.requests.find((r) => r.body.includes(created.body.id));
      await eventually(
        'the new item is delivered',
        async () => (await drain(copy, webhookDeliveryJob(copy)), deliveredHere() !== undefined),
        20_000,
        100,
      );
      const delivered = deliveredHere();
      expect(delivered).toBeDefined();
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(delivered!.headers[h])]),
      );
      expect(() => new Webhook(signingSecret).verify(delivered!.body, headers)).not.toThrow();
    } finally {
      await server.close();
      await copy.db.$store.close();
    }
  }, 120_000);

  it('refuses a database that holds data already, changing nothing, the password in no message', async () => {
    const target = await newDatabase();
    const pool = new pg.Pool({ connectionString: target.url, max: 1 });
    try {
      const first = await migrateToPostgres(source.db, withPassword(target), () => {});
      const counts = async () => (await pool.query<{ n: string }>('select count(*) as n from workspaces')).rows[0]!.n;
      expect(await counts()).toBe(String(first.tables.find((t) => t.table === 'workspaces')!.rows));
      const again = await migrateCommand(data.dir, withPassword(target));
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/The PostgreSQL database is not empty: .*workspaces \(2 rows\)/);
      expect(again.stdout + again.stderr).not.toContain(PASSWORD);
      expect(await counts()).toBe('2');
    } finally {
      await pool.end();
    }
  }, 120_000);

  it('commits nothing when stopped halfway, so the same database takes a second run from scratch', async () => {
    const target = await newDatabase();
    const pool = new pg.Pool({ connectionString: target.url, max: 1 });
    const reader = new Database(sqliteOf(source.db).name, { readonly: true });
    try {
      const migrating = await openPostgres(target.url, { max: 1 });
      await migratePostgres(migrating).finally(() => migrating.$client.end());
      await expect(
        copySqliteToPostgres(reader, pool, {
          onTable: ({ table }) => {
            if (table === 'content') throw new Error('stopped halfway');
          },
        }),
      ).rejects.toThrow('stopped halfway');
      const { rows } = await pool.query<{ n: string }>('select count(*) as n from workspaces');
      expect(rows[0]!.n).toBe('0');
      const second = await migrateToPostgres(source.db, target.url, () => {});
      expect(second.rows).toBeGreaterThan(0);
    } finally {
      reader.close();
      await pool.end();
    }
  }, 120_000);

  it('refuses a service already on PostgreSQL, a URL that is not PostgreSQL, and says why it cannot connect', async () => {
    const onPostgres = await openPostgresDatabase((await newDatabase()).url, { max: 1 });
    await expect(migrateToPostgres(onPostgres, 'postgres://h/d', () => {})).rejects.toMatchObject({
      code: 'invalid_state',
      message: expect.stringContaining('already runs on PostgreSQL'),
    });
    await onPostgres.$store.close();
    await expect(migrateToPostgres(source.db, 'mysql://u:p@h/d', () => {})).rejects.toMatchObject({
      code: 'invalid_body',
    });
    const unreachable = `postgres://u:${PASSWORD}@127.0.0.1:1/none`;
    const refused = await migrateToPostgres(source.db, unreachable, () => {}).catch((error: Error) => error);
    expect((refused as Error).message).toMatch(/Cannot connect to PostgreSQL at 127\.0\.0\.1:1\/none/);
    expect((refused as Error).message).not.toContain(PASSWORD);
  });
});
