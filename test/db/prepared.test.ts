import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, preparedStatements } from '../../db/client.ts';
import { withFastExecution } from '../../db/prepared.ts';
import * as schema from '../../db/schema/index.ts';
import { events, workspaces } from '../../db/schema/index.ts';

// Every query below runs twice, as drizzle prepares it and through preparedStatements (db/prepared.ts):
// the answers must be the same, value for value and type for type.
function world() {
  const db = openDatabase(':memory:');
  db.insert(workspaces)
    .values({
      id: 'ws_1',
      orgId: 'org_1',
      name: 'One',
      plan: 'business',
      planStatus: 'active',
      createdAt: new Date(1_000),
    })
    .run();
  const build = (d: typeof db) => ({
    insertEvent: d
      .insert(events)
      .values({
        id: sql.placeholder('id'),
        workspaceId: sql.placeholder('workspaceId'),
        type: sql.placeholder('type'),
        data: sql.placeholder('data'),
        createdAt: sql.placeholder('createdAt'),
      })
      .prepare(),
    eventById: d
      .select({
        id: events.id,
        data: events.data,
        createdAt: events.createdAt,
        n: sql<number>`length(${events.type})`,
        aliased: sql<string>`upper(${events.type})`.as('aliased'),
      })
      .from(events)
      .where(eq(events.id, sql.placeholder('id')))
      .prepare(),
    eventsOf: d
      .select()
      .from(events)
      .where(eq(events.workspaceId, sql.placeholder('workspaceId')))
      .orderBy(events.seq)
      .prepare(),
    nested: d
      .select({ event: { id: events.id }, workspace: { name: workspaces.name } })
      .from(events)
      .leftJoin(workspaces, eq(workspaces.id, events.workspaceId))
      .where(eq(events.id, sql.placeholder('id')))
      .prepare(),
    rename: d
      .update(events)
      .set({ type: sql`${sql.placeholder('type')}` })
      .where(eq(events.id, sql.placeholder('id')))
      .returning({ id: events.id, type: events.type, createdAt: events.createdAt })
      .prepare(),
  });
  return { db, plain: build(db), fast: preparedStatements(build)(db) };
}

describe('preparedStatements runs drizzle prepared queries without drizzle per call, with its answers', () => {
  it('binds placeholders through the column encoders and decodes every column as drizzle does', () => {
    const { plain, fast } = world();
    const at = new Date(1_700_000_000_123);
    fast.insertEvent.run({
      id: 'evt_1',
      workspaceId: 'ws_1',
      type: 'content.created',
      data: { a: [1, 'x'] },
      createdAt: at,
    });
    plain.insertEvent.run({
      id: 'evt_2',
      workspaceId: 'ws_1',
      type: 'content.updated',
      data: { b: null },
      createdAt: at,
    });

    const one = fast.eventById.get({ id: 'evt_1' });
    expect(one).toEqual(plain.eventById.get({ id: 'evt_1' }));
    expect(one).toEqual({ id: 'evt_1', data: { a: [1, 'x'] }, createdAt: at, n: 15, aliased: 'CONTENT.CREATED' });
    expect(one!.createdAt).toBeInstanceOf(Date);
    expect(fast.eventById.get({ id: 'evt_none' })).toBeUndefined();

    const all = fast.eventsOf.all({ workspaceId: 'ws_1' });
    expect(all).toEqual(plain.eventsOf.all({ workspaceId: 'ws_1' }));
    expect(all.map((e) => e.data)).toEqual([{ a: [1, 'x'] }, { b: null }]);
    expect(fast.eventsOf.values({ workspaceId: 'ws_1' })).toEqual(plain.eventsOf.values({ workspaceId: 'ws_1' }));
  });

  it('answers an UPDATE … RETURNING and a run as drizzle does', () => {
    const { plain, fast } = world();
    const at = new Date(5_000);
    plain.insertEvent.run({ id: 'evt_1', workspaceId: 'ws_1', type: 'a', data: {}, createdAt: at });
    expect(fast.rename.get({ id: 'evt_1', type: 'b' })).toEqual({ id: 'evt_1', type: 'b', createdAt: at });
    expect(fast.rename.get({ id: 'evt_none', type: 'b' })).toBeUndefined();
    const result = fast.insertEvent.run({ id: 'evt_2', workspaceId: 'ws_1', type: 'c', data: {}, createdAt: at });
    expect(result.changes).toBe(1);
  });

  it('refuses a missing placeholder, as drizzle does', () => {
    const { fast } = world();
    expect(() => fast.eventById.get({})).toThrow('No value for placeholder "id" was provided');
  });

  it('leaves a query whose fields nest by table to drizzle, which nulls an unmatched join', () => {
    const { db, fast } = world();
    db.$client.pragma('foreign_keys = OFF');
    db.insert(events).values({ id: 'evt_x', workspaceId: 'ws_gone', type: 't', data: {}, createdAt: new Date() }).run();
    expect(fast.nested.get({ id: 'evt_x' })).toEqual({ event: { id: 'evt_x' }, workspace: null });
    const query = db.select({ id: events.id }).from(events).prepare();
    expect(withFastExecution(query)).not.toBe(query);
    expect(withFastExecution(fast.nested)).toBe(fast.nested);
  });

  it('leaves a query of a connection with a logger to drizzle, so the logger hears every call', () => {
    const { db } = world();
    const heard: string[] = [];
    const logged = drizzle({ client: db.$client, schema, logger: { logQuery: (query) => heard.push(query) } });
    const { count } = preparedStatements((d: typeof logged) => ({
      count: d
        .select({ n: sql<number>`count(*)` })
        .from(events)
        .prepare(),
    }))(logged);
    expect(count.get()).toEqual({ n: 0 });
    expect(count.get()).toEqual({ n: 0 });
    expect(heard).toHaveLength(2);
  });
});
