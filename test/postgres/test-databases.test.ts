import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, onServer } from '../helpers/postgres.ts';

const exists = (name: string) =>
  onServer(
    async (client) => (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1,
  );

describe('a database of its own for each PostgreSQL test file', () => {
  it('is a copy of the migrated template, and dropping it ends the connections left open on it', async () => {
    const database = await createTestDatabase();
    const left = new pg.Client({ connectionString: database.url });
    await left.connect();
    left.on('error', () => {}); // ended by the drop below, as intended
    const tables = await left.query("select count(*)::int as n from pg_tables where schemaname = 'public'");
    expect(tables.rows[0].n).toBeGreaterThan(30);
    const plans = await left.query('select count(*)::int as n from plans');
    expect(plans.rows[0].n).toBeGreaterThan(0);

    await database.drop();
    expect(await exists(database.name)).toBe(false);
    await left.end().catch(() => {});
  });

  it('gives two databases made at once two names, and an empty one has no tables', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase({ empty: true })]);
    try {
      expect(a.name).not.toBe(b.name);
      const client = new pg.Client({ connectionString: b.url });
      await client.connect();
      const tables = await client.query("select count(*)::int as n from pg_tables where schemaname = 'public'");
      await client.end();
      expect(tables.rows[0].n).toBe(0);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });
});
