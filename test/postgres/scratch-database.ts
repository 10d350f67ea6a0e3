import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL server the tests of this folder run against (a superuser's URL). */
export function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: the tests in test/postgres need a PostgreSQL server');
  return url;
}

/** `url` with another database (and, when given, another user and password). */
export function withDatabase(url: string, database: string, credentials?: { user: string; password: string }): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  if (credentials) {
    parsed.username = encodeURIComponent(credentials.user);
    parsed.password = encodeURIComponent(credentials.password);
  }
  return parsed.toString();
}

/** Runs `work` on a short-lived connection to the server's maintenance database. */
export async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl(), 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database of this test's own, dropped by `drop()` (connections still open are ended). */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  await onServer((client) => client.query(`create database "${name}"`));
  return {
    name,
    url: withDatabase(serverUrl(), name),
    drop: () => onServer((client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => {}),
  };
}
