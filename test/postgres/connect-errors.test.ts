import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, PostgresConnectError } from '../../db/postgres.ts';
import { databaseUrl, onServer, postgresServerUrl } from '../helpers/postgres.ts';

/** The role the wrong-password case signs in as: the server's pg_hba.conf must ask it for a password. */
const PASSWORD_ROLE = 'password_probe';
const rightPassword = `right-${randomBytes(8).toString('hex')}`;
const wrongPassword = `wrong-${randomBytes(8).toString('hex')}`;

const server = new URL(postgresServerUrl());
const hostPort = `${server.hostname}:${server.port || '5432'}`;

/** Every message the error exposes: its own, its causes', and what inspecting it prints. */
function everythingShown(error: unknown): string {
  const parts: string[] = [inspect(error, { depth: 10 }), JSON.stringify(error)];
  for (let e: unknown = error; e instanceof Error; e = e.cause) parts.push(e.message, e.stack ?? '');
  return parts.join('\n');
}

async function openError(url: string): Promise<PostgresConnectError> {
  const error = await openPostgres(url, { connectTimeoutMs: 10_000 }).then(
    async (db) => {
      await db.$client.end();
      throw new Error(`opened ${url} although it should have failed`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PostgresConnectError);
  return error as PostgresConnectError;
}

/** A loopback port nothing listens on: bound by the system, then released. */
async function closedPort(): Promise<number> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as { port: number };
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  return port;
}

describe('openPostgres', () => {
  beforeAll(async () => {
    await onServer(async (client) => {
      const rules = await client.query<{ auth_method: string }>(
        `select auth_method from pg_hba_file_rules where type = 'host' and ($1 = any(user_name) or 'all' = any(user_name)) order by line_number limit 1`,
        [PASSWORD_ROLE],
      );
      const method = rules.rows[0]?.auth_method;
      if (method !== 'scram-sha-256' && method !== 'md5') {
        throw new Error(
          `The test server lets ${PASSWORD_ROLE} in without a password (${method ?? 'no rule'}): its pg_hba.conf needs "host all ${PASSWORD_ROLE} 127.0.0.1/32 scram-sha-256" before the trust lines`,
        );
      }
      const exists = await client.query('select 1 from pg_roles where rolname = $1', [PASSWORD_ROLE]);
      const verb = exists.rowCount === 0 ? 'create' : 'alter';
      await client.query(`${verb} role ${PASSWORD_ROLE} login password '${rightPassword}'`);
    });
  });
  afterAll(async () => {
    await onServer((client) => client.query(`drop role if exists ${PASSWORD_ROLE}`));
  });

  it('opens with the right password (the role and rule the next cases rely on work)', async () => {
    const db = await openPostgres(
      databaseUrl(postgresServerUrl(), 'postgres', { user: PASSWORD_ROLE, password: rightPassword }),
    );
    expect((await db.$client.query('select current_user as who')).rows).toEqual([{ who: PASSWORD_ROLE }]);
    await db.$client.end();
  });

  it('names the server, the database and the reason for a wrong password, and never the password', async () => {
    const error = await openError(
      databaseUrl(postgresServerUrl(), 'postgres', { user: PASSWORD_ROLE, password: wrongPassword }),
    );
    expect(error.message).toBe(
      `Cannot connect to PostgreSQL at ${hostPort}/postgres as ${PASSWORD_ROLE}: password authentication failed`,
    );
    expect(error.code).toBe('28P01');
    expect(everythingShown(error)).not.toContain(wrongPassword);
  });

  it('names the server and the reason for a refused connection, and never the password', async () => {
    const port = await closedPort();
    const error = await openError(`postgres://someone:${wrongPassword}@127.0.0.1:${port}/service`);
    expect(error.message).toBe(
      `Cannot connect to PostgreSQL at 127.0.0.1:${port}/service as someone: connection refused (is PostgreSQL running and listening there?)`,
    );
    expect(error.code).toBe('ECONNREFUSED');
    expect(everythingShown(error)).not.toContain(wrongPassword);
  });

  it('names the server and the database that does not exist, and never the password', async () => {
    const name = `missing_${randomBytes(4).toString('hex')}`;
    const error = await openError(
      databaseUrl(postgresServerUrl(), name, { user: PASSWORD_ROLE, password: rightPassword }),
    );
    expect(error.message).toBe(
      `Cannot connect to PostgreSQL at ${hostPort}/${name} as ${PASSWORD_ROLE}: the database does not exist`,
    );
    expect(error.code).toBe('3D000');
    expect(everythingShown(error)).not.toContain(rightPassword);
  });

  it.each([
    ['not a URL at all', `host=localhost password=${wrongPassword}`],
    ['a broken host', `postgres://someone:${wrongPassword}@[127.0.0.1/service`],
    ['a port out of range', `postgres://someone:${wrongPassword}@127.0.0.1:99999/service`],
  ])('says a malformed URL (%s) is malformed, and never repeats it', async (_, url) => {
    const error = await openError(url);
    expect(error.message).toBe('The PostgreSQL URL is malformed: expected postgres://user:password@host:port/database');
    expect(error.code).toBe('MALFORMED_URL');
    expect(everythingShown(error)).not.toContain(wrongPassword);
  });

  it('refuses a URL of another scheme without repeating it', async () => {
    const error = await openError(`mysql://someone:${wrongPassword}@127.0.0.1/service`);
    expect(error.message).toBe(
      'The PostgreSQL URL is malformed: it starts with mysql:// instead of postgres:// or postgresql://',
    );
    expect(everythingShown(error)).not.toContain(wrongPassword);
  });
});
