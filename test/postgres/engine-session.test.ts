import { and, count, eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDialect, postgresExecutor, postgresTypes } from '../../db/engine/postgres-executor.ts';
import { asyncDb, type AsyncDb } from '../../db/engine/session.ts';
import { content, plans, workspaces } from '../../db/schema/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

const NOW = new Date('2026-12-02T12:00:00.000Z');
const WORKSPACE = {
  id: 'ws_1',
  orgId: 'org_1',
  name: 'One',
  plan: 'free',
  planStatus: 'active' as const,
  createdAt: NOW,
};

describe('the async query builder over PostgreSQL', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: AsyncDb;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, types: postgresTypes });
    db = asyncDb(
      postgresExecutor(() => pool),
      new PostgresDialect(),
    );
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('writes and reads back rows as SQLite gives them: dates, booleans, JSON, counts', async () => {
    await db.insert(workspaces).values(WORKSPACE).run();
    const row = await db.select().from(workspaces).where(eq(workspaces.id, 'ws_1')).get();
    expect(row).toEqual({ ...WORKSPACE, timezone: 'UTC', approverMustDiffer: false, defaultLanguage: null });
    expect(
      (await db.update(workspaces).set({ approverMustDiffer: true }).where(eq(workspaces.id, 'ws_1')).run()).changes,
    ).toBe(1);
    expect((await db.update(workspaces).set({ name: 'x' }).where(eq(workspaces.id, 'nope')).run()).changes).toBe(0);
    expect((await db.select({ n: count() }).from(workspaces).get())?.n).toBe(1);

    await db
      .insert(content)
      .values({
        id: 'c_1',
        workspaceId: 'ws_1',
        caption: 'Hello',
        hashtags: ['launch'],
        contentType: 'text_only',
        targetPlatforms: ['twitter', 'linkedin'],
        mediaUrls: [],
        platformSpecific: { twitter: { caption: 'Hello, X' } },
        publishResults: [],
        status: 'draft',
        createdAt: NOW,
        updatedAt: NOW,
      })
      .run();
    const item = await db
      .select({ platforms: content.targetPlatforms, specific: content.platformSpecific, queued: content.publishQueued })
      .from(content)
      .where(and(eq(content.workspaceId, 'ws_1'), eq(content.publishQueued, false)))
      .get();
    expect(item).toEqual({
      platforms: ['twitter', 'linkedin'],
      specific: { twitter: { caption: 'Hello, X' } },
      queued: false,
    });
  });

  it('runs prepared statements, raw SQL as objects, upserts on a conflict target, and joins', async () => {
    const byName = db
      .select({ name: plans.name, posts: plans.postsPerMonth })
      .from(plans)
      .where(eq(plans.name, sql.placeholder('name')))
      .prepare();
    expect((await byName.get({ name: 'free' }))?.name).toBe('free');
    expect(await byName.get({ name: 'nope' })).toBeUndefined();
    expect(await db.all(sql`select name from plans where name = ${'free'}`)).toEqual([{ name: 'free' }]);

    const free = (await db.select().from(plans).where(eq(plans.name, 'free')).get())!;
    const [plan] = await db
      .insert(plans)
      .values({ ...free, postsPerMonth: 7 })
      .onConflictDoUpdate({ target: plans.name, set: { postsPerMonth: 7 } })
      .returning();
    expect(plan?.postsPerMonth).toBe(7);

    const rows = await db
      .select({ id: workspaces.id, item: content.id })
      .from(workspaces)
      .leftJoin(content, eq(content.workspaceId, workspaces.id))
      .where(eq(workspaces.id, 'ws_1'))
      .all();
    expect(rows).toEqual([{ id: 'ws_1', item: 'c_1' }]);
  });
});
