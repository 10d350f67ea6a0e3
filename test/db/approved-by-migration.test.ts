import Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { connectAccounts, sandboxPostsFor } from '../helpers/publishing.ts';
import { contentRow } from '../helpers/rest-expect.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { onSqliteOnly } from '../helpers/sqlite-only.ts';
import { getWorkspace } from '../../src/core/accounts/workspaces.ts';

const dir = mkdtempSync(join(tmpdir(), 'approved-by-migration-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const migrationsFolder = join(import.meta.dirname, '../../db/migrations');
const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as {
  entries: { tag: string }[];
};
/** Where the migration under test sits, found by its name (migrations may be renumbered). */
const APPROVED_BY_MIGRATION = journal.entries.findIndex((entry) => entry.tag.endsWith('_content_approved_by'));

/** A database as the service left it before approvers were recorded: every earlier migration applied. */
function databaseBeforeApprovedBy(file: string): Database.Database {
  const sqlite = new Database(file);
  sqlite.exec('CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)');
  for (const migration of readMigrationFiles({ migrationsFolder }).slice(0, APPROVED_BY_MIGRATION)) {
    for (const statement of migration.sql) if (statement.trim()) sqlite.exec(statement);
    sqlite
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run(migration.hash, migration.folderMillis);
  }
  return sqlite;
}

// The migration of a SQLite file from before approvers were recorded; PostgreSQL starts from a baseline that has them.
onSqliteOnly.it(
  "SQLite migration: items waiting to go out take their approver from their history, and an author's own approval is then held",
  async () => {
    expect(APPROVED_BY_MIGRATION).toBeGreaterThan(0);
    const file = join(dir, 'service.db');
    const before = databaseBeforeApprovedBy(file);
    const at = Date.parse('2026-03-10T11:00:00Z');
    const due = Date.parse('2026-03-10T12:00:00Z');
    before.exec(`
    INSERT INTO plans VALUES ('pro', 1000, 10, 1, 100, 365);
    INSERT INTO workspaces (id, org_id, name, plan, plan_status, created_at, approver_must_differ)
      VALUES ('ws-1', 'org-1', 'Acme', 'pro', 'active', ${at}, 1);
  `);
    const item = before.prepare(`
    INSERT INTO content (id, workspace_id, caption, hashtags, content_type, target_platforms, media_urls,
      platform_specific, scheduled_for, status, publish_queued, publish_results, created_by_type, created_by_id,
      created_at, updated_at)
    VALUES (?, 'ws-1', 'Spring', '[]', 'text_only', '["linkedin"]', '[]', '{}', ?, ?, ?, '[]', 'user', 'u-author', ${at}, ${at})`);
    const line = before.prepare(`
    INSERT INTO content_history (workspace_id, content_id, action, from_status, to_status, actor_type, actor_id,
      actor_label, at) VALUES ('ws-1', ?, ?, ?, ?, ?, ?, ?, ?)`);
    // Scheduled by its own author; approved by someone else and then edited; a draft; one with no history.
    item.run('c-own', due, 'scheduled', 1);
    line.run('c-own', 'created', null, 'pending_review', 'user', 'u-author', 'author@example.com', at);
    line.run('c-own', 'scheduled', 'pending_review', 'scheduled', 'user', 'u-author', 'author@example.com', at + 1);
    item.run('c-other', due, 'scheduled', 1);
    line.run('c-other', 'created', null, 'draft', 'user', 'u-author', 'author@example.com', at);
    line.run('c-other', 'scheduled', 'draft', 'scheduled', 'user', 'u-other', 'other@example.com', at + 1);
    line.run('c-other', 'rescheduled', 'scheduled', 'scheduled', 'user', 'u-author', 'author@example.com', at + 2);
    item.run('c-draft', null, 'draft', 0);
    line.run('c-draft', 'approved', 'pending_review', 'approved', 'user', 'u-other', 'other@example.com', at);
    line.run('c-draft', 'returned to draft', 'approved', 'draft', 'user', 'u-other', 'other@example.com', at + 1);
    item.run('c-none', null, 'approved', 0);
    before.close();

    const runtime = await testRuntime({ file, start: '2026-03-10T12:00:30Z' });
    try {
      const approverOf = async (id: string) => {
        const row = (await contentRow(runtime, id))!;
        return [row.approvedByType, row.approvedById];
      };
      expect(await approverOf('c-own')).toEqual(['user', 'u-author']);
      expect(await approverOf('c-other')).toEqual(['user', 'u-other']);
      expect(await approverOf('c-draft')).toEqual([null, null]);
      expect(await approverOf('c-none')).toEqual([null, null]);

      await connectAccounts(runtime, await getWorkspace(runtime.db, 'ws-1'), ['linkedin']);
      expect(await drain(runtime, publishingJob(runtime))).toEqual(['published']);
      expect((await contentRow(runtime, 'c-other'))!.status).toBe('published');
      expect(await sandboxPostsFor(runtime, 'c-own')).toEqual([]);
      expect(await contentRow(runtime, 'c-own')).toMatchObject({ status: 'approved', publishQueued: false });
    } finally {
      await runtime.db.$store.close();
    }
  },
);
