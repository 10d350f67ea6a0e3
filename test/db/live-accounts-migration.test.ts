import Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { sqliteOf, openDatabase } from '../../db/client.ts';
import { socialAccounts } from '../../db/schema/index.ts';
import { toSocialAccountResource } from '../../src/core/social-accounts/serialize.ts';

const dir = mkdtempSync(join(tmpdir(), 'live-accounts-migration-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const migrationsFolder = join(import.meta.dirname, '../../db/migrations');
const LIVE_ACCOUNTS_MIGRATION = 10;

/** A database as the service left it before live accounts: every migration up to the one under test applied. */
function databaseBeforeLiveAccounts(file: string): Database.Database {
  const sqlite = new Database(file);
  sqlite.exec('CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)');
  for (const migration of readMigrationFiles({ migrationsFolder }).slice(0, LIVE_ACCOUNTS_MIGRATION)) {
    for (const statement of migration.sql) if (statement.trim()) sqlite.exec(statement);
    sqlite
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run(migration.hash, migration.folderMillis);
  }
  return sqlite;
}

it('turns existing accounts into sandbox accounts, active or disconnected as is_active said', async () => {
  const file = join(dir, 'service.db');
  const before = databaseBeforeLiveAccounts(file);
  expect(before.prepare("select 1 from pragma_table_info('social_accounts') where name = 'status'").get()).toBe(
    undefined,
  );
  before.exec(`
    INSERT INTO plans VALUES ('pro', 1000, 10, 1, 100, 365);
    INSERT INTO workspaces VALUES ('ws-1', 'org-1', 'Acme', 'pro', 'active', 1767225600000);
    INSERT INTO social_accounts (id, workspace_id, platform, platform_user_id, username, display_name, is_active, connected_at, created_at)
      VALUES ('acc-on', 'ws-1', 'twitter', '1001', 'acme', 'Acme', 1, 1767225600000, 1767225600000),
             ('acc-off', 'ws-1', 'linkedin', '1002', 'acme-co', NULL, 0, 1767225700000, 1767225700000);
  `);
  before.close();

  const db = openDatabase(file);
  try {
    const rows = await db.select().from(socialAccounts).orderBy(socialAccounts.id).all();
    expect(rows.map((row) => [row.id, row.mode, row.status, row.isActive, row.scopes])).toEqual([
      ['acc-off', 'sandbox', 'disconnected', false, []],
      ['acc-on', 'sandbox', 'active', true, []],
    ]);
    expect(rows[1]).toMatchObject({
      username: 'acme',
      displayName: 'Acme',
      profileUrl: null,
      accessTokenEncrypted: null,
      refreshTokenEncrypted: null,
      tokenExpiresAt: null,
      refreshTokenExpiresAt: null,
      refreshLeaseToken: null,
      refreshLeaseUntil: null,
      connectedAt: new Date(1767225600000),
    });
    expect(toSocialAccountResource(rows[0]!, new Date())).toMatchObject({
      mode: 'sandbox',
      status: 'disconnected',
      is_active: false,
      scopes: [],
      token_expires_at: null,
      reconnect_by: null,
      profile_url: null,
    });

    // is_active now follows status: the database derives it and refuses to have it written.
    sqliteOf(db).prepare("UPDATE social_accounts SET status = 'needs_reconnect' WHERE id = 'acc-on'").run();
    expect(sqliteOf(db).prepare("SELECT is_active FROM social_accounts WHERE id = 'acc-on'").pluck().get()).toBe(0);
    expect(() => sqliteOf(db).prepare('UPDATE social_accounts SET is_active = 1').run()).toThrow(/generated column/);
    // The unique index on (workspace, platform, platform user id) is still there.
    expect(() =>
      sqliteOf(db)
        .prepare(
          "INSERT INTO social_accounts (id, workspace_id, platform, platform_user_id, username, connected_at, created_at) VALUES ('dup', 'ws-1', 'twitter', '1001', 'x', 0, 0)",
        )
        .run(),
    ).toThrow(/UNIQUE/);
  } finally {
    await db.$store.close();
  }
});
