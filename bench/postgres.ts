/**
 * The PostgreSQL side of `--db postgres://…`: each measurement on PostgreSQL gets a database of its
 * own, made empty on the named server and dropped after, as each SQLite measurement gets a fresh file.
 * The service migrates it when it opens it (db/postgres.ts), so a run starts from the same schema and
 * seeded plans as a new SQLite file.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { isPostgresUrl } from '../src/core/config.ts';

/** The groups `--db` runs on PostgreSQL too; every other group runs on SQLite only. */
export const POSTGRES_GROUPS = ['rest', 'publishing', 'webhooks', 'generation'] as const;

/** Checks `--db` at start-up, so a wrong value fails before any group has run. */
export function postgresServer(url: string): string {
  if (!isPostgresUrl(url)) throw new Error('--db takes a PostgreSQL URL: postgres://user:password@host:port/database');
  try {
    new URL(url);
  } catch {
    // URL's own error repeats the input, password and all.
    throw new Error('--db is not a valid URL: expected postgres://user:password@host:port/database');
  }
  return url;
}

/** host:port of `url`, for the header: never the user's password. */
export function describeServer(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
}

export interface BenchDatabase {
  name: string;
  url: string;
  /** Ends the connections still open on it and drops it. */
  drop(): Promise<void>;
}

/** Runs `work` on one connection to the database `serverUrl` names (any database the user may create databases from). */
async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new empty database `bench_<random>` on the server of `serverUrl`, and its URL. */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `bench_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await onServer(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/** Runs `work` with a fresh database on `serverUrl`, dropped afterwards whatever `work` did. */
export async function withBenchDatabase<T>(
  serverUrl: string,
  work: (database: BenchDatabase) => Promise<T>,
): Promise<T> {
  const database = await createBenchDatabase(serverUrl);
  try {
    return await work(database);
  } finally {
    await database.drop();
  }
}
