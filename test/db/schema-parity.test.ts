import { getTableColumns, is, type Table } from 'drizzle-orm';
import { getTableConfig as getPgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as getSqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as pg from '../../db/schema-pg/index.ts';
import * as sqlite from '../../db/schema/index.ts';

/**
 * The PostgreSQL schema is a second copy of the SQLite one (drizzle has no dialect-neutral schema):
 * the core reads and writes both through the same row types and the same names, so a column renamed,
 * retyped or made nullable on one side only must fail here. The type half fails `tsc --noEmit`; the
 * runtime half fails vitest.
 */

type Tables<S> = { [K in keyof S as S[K] extends Table ? K : never]: S[K] };
/** Each table's columns by property, with the SQL name each maps to: a rename on either side changes it. */
type ColumnNames<S> = {
  [K in keyof Tables<S>]: Tables<S>[K] extends { _: { columns: infer Columns } }
    ? { [C in keyof Columns]: Columns[C] extends { _: { name: infer Name } } ? Name : never }
    : never;
};
type Rows<S, Kind extends '$inferSelect' | '$inferInsert'> = {
  [K in keyof Tables<S>]: Tables<S>[K] extends Record<Kind, infer Row> ? Row : never;
};

describe('the row types of the two schemas', () => {
  it('have the same tables, each with the same select and insert rows', () => {
    expectTypeOf<keyof Tables<typeof pg>>().toEqualTypeOf<keyof Tables<typeof sqlite>>();
    expectTypeOf<ColumnNames<typeof pg>>().toEqualTypeOf<ColumnNames<typeof sqlite>>();
    expectTypeOf<Rows<typeof pg, '$inferSelect'>>().toEqualTypeOf<Rows<typeof sqlite, '$inferSelect'>>();
    expectTypeOf<Rows<typeof pg, '$inferInsert'>>().toEqualTypeOf<Rows<typeof sqlite, '$inferInsert'>>();
  });

  // One assertion per table as well, so a mismatch names its table in the compiler's message.
  it('apiKeyUses', () => {
    expectTypeOf<typeof pg.apiKeyUses.$inferSelect>().toEqualTypeOf<typeof sqlite.apiKeyUses.$inferSelect>();
    expectTypeOf<typeof pg.apiKeyUses.$inferInsert>().toEqualTypeOf<typeof sqlite.apiKeyUses.$inferInsert>();
  });
  it('apiKeys', () => {
    expectTypeOf<typeof pg.apiKeys.$inferSelect>().toEqualTypeOf<typeof sqlite.apiKeys.$inferSelect>();
    expectTypeOf<typeof pg.apiKeys.$inferInsert>().toEqualTypeOf<typeof sqlite.apiKeys.$inferInsert>();
  });
  it('authEpoch', () => {
    expectTypeOf<typeof pg.authEpoch.$inferSelect>().toEqualTypeOf<typeof sqlite.authEpoch.$inferSelect>();
    expectTypeOf<typeof pg.authEpoch.$inferInsert>().toEqualTypeOf<typeof sqlite.authEpoch.$inferInsert>();
  });
  it('brandProfiles', () => {
    expectTypeOf<typeof pg.brandProfiles.$inferSelect>().toEqualTypeOf<typeof sqlite.brandProfiles.$inferSelect>();
    expectTypeOf<typeof pg.brandProfiles.$inferInsert>().toEqualTypeOf<typeof sqlite.brandProfiles.$inferInsert>();
  });
  it('campaigns', () => {
    expectTypeOf<typeof pg.campaigns.$inferSelect>().toEqualTypeOf<typeof sqlite.campaigns.$inferSelect>();
    expectTypeOf<typeof pg.campaigns.$inferInsert>().toEqualTypeOf<typeof sqlite.campaigns.$inferInsert>();
  });
  it('content', () => {
    expectTypeOf<typeof pg.content.$inferSelect>().toEqualTypeOf<typeof sqlite.content.$inferSelect>();
    expectTypeOf<typeof pg.content.$inferInsert>().toEqualTypeOf<typeof sqlite.content.$inferInsert>();
  });
  it('contentHistory', () => {
    expectTypeOf<typeof pg.contentHistory.$inferSelect>().toEqualTypeOf<typeof sqlite.contentHistory.$inferSelect>();
    expectTypeOf<typeof pg.contentHistory.$inferInsert>().toEqualTypeOf<typeof sqlite.contentHistory.$inferInsert>();
  });
  it('dataDeletionRequests', () => {
    expectTypeOf<typeof pg.dataDeletionRequests.$inferSelect>().toEqualTypeOf<
      typeof sqlite.dataDeletionRequests.$inferSelect
    >();
    expectTypeOf<typeof pg.dataDeletionRequests.$inferInsert>().toEqualTypeOf<
      typeof sqlite.dataDeletionRequests.$inferInsert
    >();
  });
  it('events', () => {
    expectTypeOf<typeof pg.events.$inferSelect>().toEqualTypeOf<typeof sqlite.events.$inferSelect>();
    expectTypeOf<typeof pg.events.$inferInsert>().toEqualTypeOf<typeof sqlite.events.$inferInsert>();
  });
  it('handledSignedRequests', () => {
    expectTypeOf<typeof pg.handledSignedRequests.$inferSelect>().toEqualTypeOf<
      typeof sqlite.handledSignedRequests.$inferSelect
    >();
    expectTypeOf<typeof pg.handledSignedRequests.$inferInsert>().toEqualTypeOf<
      typeof sqlite.handledSignedRequests.$inferInsert
    >();
  });
  it('idempotencyKeys', () => {
    expectTypeOf<typeof pg.idempotencyKeys.$inferSelect>().toEqualTypeOf<typeof sqlite.idempotencyKeys.$inferSelect>();
    expectTypeOf<typeof pg.idempotencyKeys.$inferInsert>().toEqualTypeOf<typeof sqlite.idempotencyKeys.$inferInsert>();
  });
  it('invitations', () => {
    expectTypeOf<typeof pg.invitations.$inferSelect>().toEqualTypeOf<typeof sqlite.invitations.$inferSelect>();
    expectTypeOf<typeof pg.invitations.$inferInsert>().toEqualTypeOf<typeof sqlite.invitations.$inferInsert>();
  });
  it('mediaAssets', () => {
    expectTypeOf<typeof pg.mediaAssets.$inferSelect>().toEqualTypeOf<typeof sqlite.mediaAssets.$inferSelect>();
    expectTypeOf<typeof pg.mediaAssets.$inferInsert>().toEqualTypeOf<typeof sqlite.mediaAssets.$inferInsert>();
  });
  it('memberships', () => {
    expectTypeOf<typeof pg.memberships.$inferSelect>().toEqualTypeOf<typeof sqlite.memberships.$inferSelect>();
    expectTypeOf<typeof pg.memberships.$inferInsert>().toEqualTypeOf<typeof sqlite.memberships.$inferInsert>();
  });
  it('oauthAuthorizationCodes', () => {
    expectTypeOf<typeof pg.oauthAuthorizationCodes.$inferSelect>().toEqualTypeOf<
      typeof sqlite.oauthAuthorizationCodes.$inferSelect
    >();
    expectTypeOf<typeof pg.oauthAuthorizationCodes.$inferInsert>().toEqualTypeOf<
      typeof sqlite.oauthAuthorizationCodes.$inferInsert
    >();
  });
  it('oauthClients', () => {
    expectTypeOf<typeof pg.oauthClients.$inferSelect>().toEqualTypeOf<typeof sqlite.oauthClients.$inferSelect>();
    expectTypeOf<typeof pg.oauthClients.$inferInsert>().toEqualTypeOf<typeof sqlite.oauthClients.$inferInsert>();
  });
  it('oauthConnectStates', () => {
    expectTypeOf<typeof pg.oauthConnectStates.$inferSelect>().toEqualTypeOf<
      typeof sqlite.oauthConnectStates.$inferSelect
    >();
    expectTypeOf<typeof pg.oauthConnectStates.$inferInsert>().toEqualTypeOf<
      typeof sqlite.oauthConnectStates.$inferInsert
    >();
  });
  it('oauthConsentFailures', () => {
    expectTypeOf<typeof pg.oauthConsentFailures.$inferSelect>().toEqualTypeOf<
      typeof sqlite.oauthConsentFailures.$inferSelect
    >();
    expectTypeOf<typeof pg.oauthConsentFailures.$inferInsert>().toEqualTypeOf<
      typeof sqlite.oauthConsentFailures.$inferInsert
    >();
  });
  it('oauthMetadataFetches', () => {
    expectTypeOf<typeof pg.oauthMetadataFetches.$inferSelect>().toEqualTypeOf<
      typeof sqlite.oauthMetadataFetches.$inferSelect
    >();
    expectTypeOf<typeof pg.oauthMetadataFetches.$inferInsert>().toEqualTypeOf<
      typeof sqlite.oauthMetadataFetches.$inferInsert
    >();
  });
  it('oauthTokens', () => {
    expectTypeOf<typeof pg.oauthTokens.$inferSelect>().toEqualTypeOf<typeof sqlite.oauthTokens.$inferSelect>();
    expectTypeOf<typeof pg.oauthTokens.$inferInsert>().toEqualTypeOf<typeof sqlite.oauthTokens.$inferInsert>();
  });
  it('passwordLinks', () => {
    expectTypeOf<typeof pg.passwordLinks.$inferSelect>().toEqualTypeOf<typeof sqlite.passwordLinks.$inferSelect>();
    expectTypeOf<typeof pg.passwordLinks.$inferInsert>().toEqualTypeOf<typeof sqlite.passwordLinks.$inferInsert>();
  });
  it('plans', () => {
    expectTypeOf<typeof pg.plans.$inferSelect>().toEqualTypeOf<typeof sqlite.plans.$inferSelect>();
    expectTypeOf<typeof pg.plans.$inferInsert>().toEqualTypeOf<typeof sqlite.plans.$inferInsert>();
  });
  it('publishAttempts', () => {
    expectTypeOf<typeof pg.publishAttempts.$inferSelect>().toEqualTypeOf<typeof sqlite.publishAttempts.$inferSelect>();
    expectTypeOf<typeof pg.publishAttempts.$inferInsert>().toEqualTypeOf<typeof sqlite.publishAttempts.$inferInsert>();
  });
  it('publishCheckpoints', () => {
    expectTypeOf<typeof pg.publishCheckpoints.$inferSelect>().toEqualTypeOf<
      typeof sqlite.publishCheckpoints.$inferSelect
    >();
    expectTypeOf<typeof pg.publishCheckpoints.$inferInsert>().toEqualTypeOf<
      typeof sqlite.publishCheckpoints.$inferInsert
    >();
  });
  it('publishRuns', () => {
    expectTypeOf<typeof pg.publishRuns.$inferSelect>().toEqualTypeOf<typeof sqlite.publishRuns.$inferSelect>();
    expectTypeOf<typeof pg.publishRuns.$inferInsert>().toEqualTypeOf<typeof sqlite.publishRuns.$inferInsert>();
  });
  it('rateLimitWindows', () => {
    expectTypeOf<typeof pg.rateLimitWindows.$inferSelect>().toEqualTypeOf<
      typeof sqlite.rateLimitWindows.$inferSelect
    >();
    expectTypeOf<typeof pg.rateLimitWindows.$inferInsert>().toEqualTypeOf<
      typeof sqlite.rateLimitWindows.$inferInsert
    >();
  });
  it('sandboxPosts', () => {
    expectTypeOf<typeof pg.sandboxPosts.$inferSelect>().toEqualTypeOf<typeof sqlite.sandboxPosts.$inferSelect>();
    expectTypeOf<typeof pg.sandboxPosts.$inferInsert>().toEqualTypeOf<typeof sqlite.sandboxPosts.$inferInsert>();
  });
  it('sessions', () => {
    expectTypeOf<typeof pg.sessions.$inferSelect>().toEqualTypeOf<typeof sqlite.sessions.$inferSelect>();
    expectTypeOf<typeof pg.sessions.$inferInsert>().toEqualTypeOf<typeof sqlite.sessions.$inferInsert>();
  });
  it('signInFailures', () => {
    expectTypeOf<typeof pg.signInFailures.$inferSelect>().toEqualTypeOf<typeof sqlite.signInFailures.$inferSelect>();
    expectTypeOf<typeof pg.signInFailures.$inferInsert>().toEqualTypeOf<typeof sqlite.signInFailures.$inferInsert>();
  });
  it('socialAccounts', () => {
    expectTypeOf<typeof pg.socialAccounts.$inferSelect>().toEqualTypeOf<typeof sqlite.socialAccounts.$inferSelect>();
    expectTypeOf<typeof pg.socialAccounts.$inferInsert>().toEqualTypeOf<typeof sqlite.socialAccounts.$inferInsert>();
  });
  it('templates', () => {
    expectTypeOf<typeof pg.templates.$inferSelect>().toEqualTypeOf<typeof sqlite.templates.$inferSelect>();
    expectTypeOf<typeof pg.templates.$inferInsert>().toEqualTypeOf<typeof sqlite.templates.$inferInsert>();
  });
  it('usagePeriods', () => {
    expectTypeOf<typeof pg.usagePeriods.$inferSelect>().toEqualTypeOf<typeof sqlite.usagePeriods.$inferSelect>();
    expectTypeOf<typeof pg.usagePeriods.$inferInsert>().toEqualTypeOf<typeof sqlite.usagePeriods.$inferInsert>();
  });
  it('users', () => {
    expectTypeOf<typeof pg.users.$inferSelect>().toEqualTypeOf<typeof sqlite.users.$inferSelect>();
    expectTypeOf<typeof pg.users.$inferInsert>().toEqualTypeOf<typeof sqlite.users.$inferInsert>();
  });
  it('webhookDeliveries', () => {
    expectTypeOf<typeof pg.webhookDeliveries.$inferSelect>().toEqualTypeOf<
      typeof sqlite.webhookDeliveries.$inferSelect
    >();
    expectTypeOf<typeof pg.webhookDeliveries.$inferInsert>().toEqualTypeOf<
      typeof sqlite.webhookDeliveries.$inferInsert
    >();
  });
  it('webhookEnqueueCursor', () => {
    expectTypeOf<typeof pg.webhookEnqueueCursor.$inferSelect>().toEqualTypeOf<
      typeof sqlite.webhookEnqueueCursor.$inferSelect
    >();
    expectTypeOf<typeof pg.webhookEnqueueCursor.$inferInsert>().toEqualTypeOf<
      typeof sqlite.webhookEnqueueCursor.$inferInsert
    >();
  });
  it('webhookJobs', () => {
    expectTypeOf<typeof pg.webhookJobs.$inferSelect>().toEqualTypeOf<typeof sqlite.webhookJobs.$inferSelect>();
    expectTypeOf<typeof pg.webhookJobs.$inferInsert>().toEqualTypeOf<typeof sqlite.webhookJobs.$inferInsert>();
  });
  it('webhooks', () => {
    expectTypeOf<typeof pg.webhooks.$inferSelect>().toEqualTypeOf<typeof sqlite.webhooks.$inferSelect>();
    expectTypeOf<typeof pg.webhooks.$inferInsert>().toEqualTypeOf<typeof sqlite.webhooks.$inferInsert>();
  });
  it('workspaces', () => {
    expectTypeOf<typeof pg.workspaces.$inferSelect>().toEqualTypeOf<typeof sqlite.workspaces.$inferSelect>();
    expectTypeOf<typeof pg.workspaces.$inferInsert>().toEqualTypeOf<typeof sqlite.workspaces.$inferInsert>();
  });
});

/** What both engines must agree on about a table, in names and meanings rather than SQL types. */
interface Shape {
  /** The property each column is read by in the core, by column name. */
  properties: Record<string, string>;
  columns: Record<string, { kind: string; notNull: boolean; optionalOnInsert: boolean; generated: boolean }>;
  primaryKey: string[];
  indexes: Record<string, { unique: boolean; on: string[]; partial: boolean }>;
  uniqueConstraints: string[];
  foreignKeys: string[];
}

type AnyColumn =
  ReturnType<typeof getSqliteTableConfig>['columns'][number] | ReturnType<typeof getPgTableConfig>['columns'][number];

/** The value type a column hands the core: a SQLite timestamp and the PostgreSQL epochMs column both say `date`. */
function kindOf(column: AnyColumn): string {
  if (column.dataType !== 'custom') return column.dataType;
  return column.mapFromDriverValue('0') instanceof Date ? 'date' : `custom ${column.getSQLType()}`;
}

function columnShape(column: AnyColumn): Shape['columns'][string] {
  // SQLite assigns an INTEGER PRIMARY KEY left out of an insert (the rowid); PostgreSQL needs a default.
  const rowid = column.columnType === 'SQLiteInteger' && column.primary;
  return {
    kind: kindOf(column),
    notNull: column.notNull,
    optionalOnInsert: !column.notNull || column.hasDefault || rowid || column.generated !== undefined,
    generated: column.generated !== undefined,
  };
}

function onNames(columns: readonly unknown[]): string[] {
  return columns.map((c) => (c !== null && typeof c === 'object' && 'name' in c ? String(c.name) : 'expression'));
}

function shapeOf(
  table: Table,
  config: ReturnType<typeof getSqliteTableConfig> | ReturnType<typeof getPgTableConfig>,
): Shape {
  const columns = config.columns as AnyColumn[];
  const primary = columns.filter((c) => c.primary).map((c) => c.name);
  return {
    properties: Object.fromEntries(Object.entries(getTableColumns(table)).map(([key, column]) => [column.name, key])),
    columns: Object.fromEntries(columns.map((c) => [c.name, columnShape(c)])),
    primaryKey: primary.length > 0 ? primary : config.primaryKeys.flatMap((pk) => pk.columns.map((c) => c.name)),
    indexes: Object.fromEntries(
      config.indexes.map((index) => [
        index.config.name,
        { unique: index.config.unique, on: onNames(index.config.columns), partial: index.config.where !== undefined },
      ]),
    ),
    uniqueConstraints: [
      ...columns.filter((c) => c.isUnique).map((c) => c.uniqueName ?? `${c.name} (unnamed)`),
      ...config.uniqueConstraints.map((u) => u.getName?.() ?? u.name ?? 'unnamed'),
    ].sort(),
    foreignKeys: config.foreignKeys
      .map((fk) => {
        const ref = fk.reference();
        const target = is(ref.foreignTable, PgTable)
          ? getPgTableConfig(ref.foreignTable).name
          : getSqliteTableConfig(ref.foreignTable as SQLiteTable).name;
        // Neither engine's default (no action) is spelt out in the schemas that leave it out.
        const onDelete = fk.onDelete ?? 'no action';
        return `${onNames(ref.columns).join(',')} -> ${target}(${onNames(ref.foreignColumns).join(',')}) on delete ${onDelete}`;
      })
      .sort(),
  };
}

function shapes(schema: Record<string, unknown>): Record<string, Shape> {
  const result: Record<string, Shape> = {};
  for (const value of Object.values(schema)) {
    if (is(value, SQLiteTable)) {
      const config = getSqliteTableConfig(value);
      result[config.name] = shapeOf(value, config);
    } else if (is(value, PgTable)) {
      const config = getPgTableConfig(value);
      result[config.name] = shapeOf(value, config);
    }
  }
  return result;
}

describe('the tables of the two schemas', () => {
  const sqliteShapes = shapes(sqlite);
  const pgShapes = shapes(pg);

  it('are the same tables', () => {
    expect(Object.keys(sqliteShapes).length).toBeGreaterThan(30);
    expect(Object.keys(pgShapes).sort()).toEqual(Object.keys(sqliteShapes).sort());
  });

  it.each(Object.keys(sqliteShapes).sort())('%s has the same columns, keys and indexes', (name) => {
    expect(pgShapes[name]).toEqual(sqliteShapes[name]);
  });
});
