import { expect } from 'vitest';
import { postsPublishedIn, usagePeriod } from '../../../src/core/accounts/usage.ts';
import { makeWorkspace } from '../../helpers/factories.ts';
import { capturingDb, testRuntime } from '../../helpers/runtime.ts';
import { onSqliteOnly } from '../../helpers/sqlite-only.ts';
import { sqliteOf } from '../../../db/client.ts';

/** Every publish counts the month's published items; the count must search the partial index. */
onSqliteOnly.it('the monthly quota count searches the partial published_at index on SQLite', async () => {
  const runtime = await testRuntime();
  const ws = await makeWorkspace(runtime);
  const captured: Array<{ sql: string; params: unknown[] }> = [];
  const logged = capturingDb(runtime.db, captured);
  expect(await postsPublishedIn(logged, ws.workspace.id, usagePeriod(runtime.clock.now()))).toBe(0);
  expect(captured).toHaveLength(1);
  const plan = sqliteOf(runtime.db)
    .prepare(`EXPLAIN QUERY PLAN ${captured[0].sql}`)
    .all(...captured[0].params) as Array<{
    detail: string;
  }>;
  expect(plan.map((r) => r.detail).join('\n')).toMatch(
    /USING COVERING INDEX content_workspace_published_idx \(workspace_id=\? AND published_at>\? AND published_at<\?\)/,
  );
});
