import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { MIGRATION_FOLDERS, type Db } from './client.ts';
import { postgresTypes } from './engine/postgres-executor.ts';
import { PostgresStore } from './engine/postgres-store.ts';
import { SEEDED_PLANS } from './plans.ts';
import * as schema from './schema-pg/index.ts';

export type PgDb = NodePgDatabase<typeof schema> & { $client: pg.Pool };

export interface OpenPostgresOptions {
  /** Connections the pool may hold at once. */
  max?: number;
  /** How long opening one connection may take before it counts as failed. */
  connectTimeoutMs?: number;
  /**
   * An idle pooled connection (or a shared one of the statements outside units) that breaks: the server
   * restarted, a proxy cut it. It is dropped already and the next query opens a new one; without a
   * listener pg would crash the process.
   */
  onIdleError?: (error: Error) => void;
}

const migrationsFolder = MIGRATION_FOLDERS.postgres;

/**
 * Taken for the whole migration transaction, so several processes starting at once apply each
 * migration once: the others wait, then find it recorded. Any constant no other code locks on.
 */
export const MIGRATION_LOCK = 7_346_021_101;

/**
 * Why a PostgreSQL database could not be opened, in one sentence naming the server (host:port) and
 * database, never the password. `cause` is a copy of the driver's error with the password taken out.
 */
export class PostgresConnectError extends Error {
  override readonly name = 'PostgresConnectError';
  constructor(
    message: string,
    readonly code: string | undefined,
    options?: { cause?: Error },
  ) {
    super(message, options);
  }
}

/**
 * Opens a pool on `url` (postgres:// or postgresql://) with drizzle over the PostgreSQL schema, and
 * checks at once that a connection can be made, so a wrong URL fails at start-up with a readable
 * error instead of at the first request.
 */
export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PgDb> {
  const target = describeTarget(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    types: postgresTypes,
    // A unit's statements go out without waiting for the one before (db/engine/postgres-store.ts).
    pipeline: true,
  });
  pool.on('error', options.onIdleError ?? (() => {}));
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw connectError(error, target);
  }
  return drizzle({ client: pool, schema }) as PgDb;
}

/**
 * Opens `url` as the service's database: connects (failing at once with a PostgresConnectError that
 * names the server, never the password), applies pending migrations under the migration lock, seeds
 * the plans, and answers the query builder on a PostgreSQL store over the same pool.
 */
export async function openPostgresDatabase(url: string, options: OpenPostgresOptions = {}): Promise<Db> {
  const migrating = await openPostgres(url, options);
  try {
    await migratePostgres(migrating);
  } catch (error) {
    await migrating.$client.end().catch(() => {});
    throw error;
  }
  const store = new PostgresStore(migrating.$client, options.onIdleError);
  return Object.assign(store.db, { $store: store });
}

interface Target {
  where: string;
  secrets: string[];
}

/** host:port/database and user as the driver will read them, and the password spellings to keep out of messages. */
function describeTarget(url: string): Target {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // URL's own error carries the input, password and all: none of it is repeated.
    throw new PostgresConnectError(
      'The PostgreSQL URL is malformed: expected postgres://user:password@host:port/database',
      'MALFORMED_URL',
    );
  }
  const secrets = parsed.password ? [parsed.password, safeDecode(parsed.password)] : [];
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new PostgresConnectError(
      `The PostgreSQL URL is malformed: it starts with ${parsed.protocol}// instead of postgres:// or postgresql://`,
      'MALFORMED_URL',
    );
  }
  // A socket folder given as ?host= (libpq's form) wins over the URL's host, as the driver reads it.
  const host = parsed.searchParams.get('host') ?? (parsed.hostname || 'localhost');
  const port = parsed.port || '5432';
  const user = safeDecode(parsed.username) || 'postgres';
  const database = safeDecode(parsed.pathname.replace(/^\//, '')) || user;
  return { where: `${host}:${port}/${database} as ${user}`, secrets: secrets.filter((s) => s.length > 0) };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Server error codes (SQLSTATE) and socket errors a wrong setting gives, in the operator's words. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is PostgreSQL running and listening there?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ECONNRESET: 'the server closed the connection',
  ENOENT: 'no such socket',
  '28P01': 'password authentication failed',
  '28000': 'the server refused this user (no pg_hba.conf entry, or no such role)',
  '3D000': 'the database does not exist',
  '53300': 'the server has too many connections',
  '57P03': 'the server is starting up or shutting down',
};

function connectError(error: unknown, target: Target): PostgresConnectError {
  const original = error instanceof Error ? error : new Error(String(error));
  const code = (original as { code?: unknown }).code;
  const known = typeof code === 'string' ? REASONS[code] : undefined;
  const detail = redact(original.message, target.secrets);
  const reason = known ?? (/timeout/i.test(detail) ? 'connection timed out' : detail);
  const cause = new Error(detail);
  if (typeof code === 'string') Object.assign(cause, { code });
  return new PostgresConnectError(
    `Cannot connect to PostgreSQL at ${target.where}: ${reason}`,
    typeof code === 'string' ? code : undefined,
    { cause },
  );
}

/** `text` with the password of the PostgreSQL URL `url` (as written and decoded) replaced by ***. */
export function redactPassword(text: string, url: string): string {
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    // No URL, so no password to find in the text.
  }
  return redact(text, password ? [password, safeDecode(password)] : []);
}

function redact(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) if (secret) result = result.split(secret).join('***');
  return result;
}

/**
 * Applies the pending migrations of db/migrations-pg in one transaction, then seeds the plans. The
 * bookkeeping is drizzle's own (drizzle.__drizzle_migrations, a hash and the folder's time per
 * migration), but read under a transaction-wide advisory lock: drizzle's migrator reads the applied
 * list before its transaction, so two processes starting at once could both apply one migration.
 */
export async function migratePostgres(db: PgDb): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder });
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.execute(sql`create schema if not exists drizzle`);
    await tx.execute(
      sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
    );
    const last = await tx.execute<{ at: string | null }>(
      sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`,
    );
    const lastAt = last.rows[0]?.at == null ? null : Number(last.rows[0].at);
    for (const migration of migrations) {
      if (lastAt !== null && lastAt >= migration.folderMillis) continue;
      for (const statement of migration.sql) if (statement.trim()) await tx.execute(sql.raw(statement));
      await tx.execute(
        sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`,
      );
    }
    for (const plan of SEEDED_PLANS) {
      await tx.insert(schema.plans).values(plan).onConflictDoUpdate({ target: schema.plans.name, set: plan });
    }
  });
}
