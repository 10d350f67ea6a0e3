import { beforeEach, describe, expect, it } from 'vitest';
import { listContent } from '../../../src/core/content/list.ts';
import { contextFor } from '../../../src/core/context.ts';
import { runOperation } from '../../../src/core/operation.ts';
import { makeContent, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { forceStatus } from '../../helpers/rest-expect.ts';
import { capturingDb, testRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { onSqliteOnly } from '../../helpers/sqlite-only.ts';
import { sqliteOf } from '../../../db/client.ts';

interface Captured {
  sql: string;
  params: unknown[];
}

/**
 * db/schema/content.ts: every list page walks an index in order. The SQL is the
 * one drizzle actually sends for listContent, captured through a logger on the same connection, and
 * SQLite's plan for it must search an index on content and sort nothing in a temporary B-tree.
 */
onSqliteOnly.describe('listContent query plan on SQLite', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  beforeEach(async () => {
    runtime = await testRuntime();
    ws = await makeWorkspace(runtime);
    const other = await makeWorkspace(runtime);
    const types = ['reel', 'text_only', 'carousel', 'single_image'];
    for (let i = 0; i < 120; i += 1) {
      const owner = i % 4 === 0 ? other : ws;
      const item = await makeContent(runtime, owner.workspace, {
        content_type: types[i % types.length],
        status: i % 3 ? 'draft' : 'approved',
      });
      if (i % 7 === 0) await forceStatus(runtime, item.id, 'archived');
      if (i % 10 === 0) runtime.clock.advance(1000);
    }
  });

  /** Runs listContent on a logged handle over the same connection and returns its page query. */
  async function capture(input: Record<string, unknown>): Promise<Captured> {
    const captured: Captured[] = [];
    const logged = capturingDb(runtime.db, captured);
    const page = await runOperation(listContent, contextFor({ ...runtime, db: logged }, ws.workspace, 'rest'), input);
    expect(page.object).toBe('list');
    const queries = captured.filter(
      (q) => /^select\b/i.test(q.sql) && /\bfrom\s+"content"/i.test(q.sql) && /order by/i.test(q.sql),
    );
    expect(queries, JSON.stringify(captured.map((q) => q.sql))).toHaveLength(1);
    return queries[0];
  }

  function plan(query: Captured): string[] {
    const rows = sqliteOf(runtime.db)
      .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .all(...query.params) as Array<{
      detail: string;
    }>;
    return rows.map((r) => r.detail);
  }

  function expectIndexedPlan(query: Captured): string[] {
    const details = plan(query);
    const text = details.join('\n');
    expect(text, text).toMatch(/SEARCH content USING (COVERING )?INDEX content_workspace_\w+_idx \(workspace_id=\?/);
    expect(text, text).not.toMatch(/USE TEMP B-TREE/);
    expect(text, text).not.toMatch(/SCAN content/);
    return details;
  }

  /** A cursor from a real first page, so the captured query carries the row-value comparison. */
  async function cursorFor(input: Record<string, unknown>): Promise<string> {
    const first = await runOperation(listContent, contextFor(runtime, ws.workspace, 'rest'), { ...input, limit: 5 });
    expect(first.has_more).toBe(true);
    return first.next_cursor!;
  }

  const cases: Array<[string, Record<string, unknown>]> = [
    ['no filter', {}],
    ['status', { status: 'approved' }],
    ['status archived', { status: 'archived' }],
    ['content_type', { content_type: 'text_only' }],
    ['status and content_type', { status: 'draft', content_type: 'text_only' }],
    ['q', { q: 'caption' }],
    ['status and q', { status: 'approved', q: 'CAPTION' }],
  ];

  describe.each([
    ['without statistics', false],
    ['after ANALYZE', true],
  ])('%s', (_label, analyze) => {
    beforeEach(() => {
      if (analyze) sqliteOf(runtime.db).exec('ANALYZE');
    });

    it.each(cases)('%s, first page', async (_name, input) => {
      const query = await capture({ ...input, limit: 25 });
      expect(query.sql).toMatch(/limit \?/i);
      expectIndexedPlan(query);
    });

    it.each(cases)('%s, with a cursor', async (_name, input) => {
      const cursor = await cursorFor(input);
      const query = await capture({ ...input, limit: 25, cursor });
      // The cursor is a range on the index itself, not a filter applied to rows already read.
      expect(expectIndexedPlan(query).join('\n')).toMatch(/\(created_at,id\)<\(\?,\?\)\)/);
    });
  });

  it.each(cases.filter(([, input]) => !('q' in input)))(
    '%s: a caption search adds a check on the rows the same plan reads, and a list without q has none',
    async (_name, input) => {
      const without = await capture({ ...input, limit: 25 });
      expect(without.sql).not.toMatch(/fold_case|instr/);
      const withQ = await capture({ ...input, q: 'caption', limit: 25 });
      expect(withQ.sql).toMatch(/fold_case/);
      expect(plan(withQ)).toEqual(plan(without));
    },
  );

  it('the plan check itself fails on a query that sorts in a temporary B-tree', () => {
    const unindexed = {
      sql: 'select * from content where workspace_id = ? order by caption desc',
      params: [ws.workspace.id],
    };
    expect(() => expectIndexedPlan(unindexed)).toThrow();
  });
});
