import { and, count, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.ts';
import { bareConflictTarget, PostgresDialect } from '../../db/engine/postgres-executor.ts';
import { asyncDb } from '../../db/engine/session.ts';
import { sqliteExecutor } from '../../db/engine/sqlite-executor.ts';
import { content, plans, workspaces } from '../../db/schema/index.ts';

const NOW = new Date('2026-12-02T12:00:00.000Z');
const WORKSPACE = {
  id: 'ws_1',
  orgId: 'org_1',
  name: 'One',
  plan: 'free',
  planStatus: 'active' as const,
  createdAt: NOW,
};

function bothBuilders() {
  const sync = openDatabase(':memory:');
  return { sync, db: asyncDb(sqliteExecutor(sync.$client)) };
}

describe('the async query builder over SQLite', () => {
  it("reads and writes what drizzle's synchronous driver does, row for row", async () => {
    const { sync, db } = bothBuilders();
    await db.insert(workspaces).values(WORKSPACE).run();
    const viaAsync = await db.select().from(workspaces).where(eq(workspaces.id, 'ws_1')).get();
    expect(viaAsync).toEqual(await sync.select().from(workspaces).where(eq(workspaces.id, 'ws_1')).get());
    expect(viaAsync?.createdAt).toEqual(NOW);
    expect(typeof viaAsync?.approverMustDiffer).toBe('boolean');

    const changed = await db
      .update(workspaces)
      .set({ approverMustDiffer: true })
      .where(eq(workspaces.id, 'ws_1'))
      .run();
    expect(changed.changes).toBe(1);
    const none = await db.update(workspaces).set({ name: 'x' }).where(eq(workspaces.id, 'ws_missing')).run();
    expect(none.changes).toBe(0);
    expect((await db.select({ n: count() }).from(workspaces).get())?.n).toBe(1);
  });

  it('runs prepared statements with placeholders, raw SQL as objects, and upserts', async () => {
    const { db } = bothBuilders();
    const byName = db
      .select({ name: plans.name, posts: plans.postsPerMonth })
      .from(plans)
      .where(eq(plans.name, sql.placeholder('name')))
      .prepare();
    const free = await byName.get({ name: 'free' });
    expect(free?.name).toBe('free');
    expect(await byName.get({ name: 'nope' })).toBeUndefined();
    expect(await db.all(sql`select name from plans where name = ${'free'}`)).toEqual([{ name: 'free' }]);

    const [plan] = await db
      .insert(plans)
      .values({ ...(await db.select().from(plans).where(eq(plans.name, 'free')).get())!, postsPerMonth: 7 })
      .onConflictDoUpdate({ target: plans.name, set: { postsPerMonth: 7 } })
      .returning();
    expect(plan?.postsPerMonth).toBe(7);
  });

  it('decodes joins, with an absent joined row as null', async () => {
    const { db } = bothBuilders();
    await db.insert(workspaces).values(WORKSPACE).run();
    const rows = await db
      .select({ id: workspaces.id, item: content.id })
      .from(workspaces)
      .leftJoin(content, and(eq(content.workspaceId, workspaces.id)))
      .all();
    expect(rows).toEqual([{ id: 'ws_1', item: null }]);
  });
});

describe("the PostgreSQL rendering of the builder's SQL", () => {
  const pg = asyncDb(
    { run: async () => ({ changes: 0 }), all: async () => [], get: async () => undefined },
    new PostgresDialect(),
  );

  it('numbers parameters, fills left-out values with default, and names bare conflict columns', () => {
    const insert = pg
      .insert(plans)
      .values({ name: 'x' } as never)
      .onConflictDoUpdate({ target: plans.name, set: { postsPerMonth: 1 } })
      .toSQL();
    expect(insert.sql).toMatch(/^insert into "plans" \(.*\) values \(\$1, default, /);
    expect(bareConflictTarget(insert.sql)).toContain(' on conflict ("name") do update set "posts_per_month" = $');
    const select = pg
      .select()
      .from(plans)
      .where(and(eq(plans.name, 'a'), eq(plans.postsPerMonth, 2)))
      .toSQL();
    expect(select.sql).toContain('where ("plans"."name" = $1 and "plans"."posts_per_month" = $2)');
  });
});
