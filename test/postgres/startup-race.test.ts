import { count, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaces } from '../../db/schema/index.ts';
import { ensureDefaultWorkspace } from '../../src/core/accounts/workspaces.ts';
import type { Runtime } from '../../src/core/context.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { runtimeOn } from './fixtures/publish-setup.ts';

/**
 * Three processes (three runtimes, three pools) starting at once on one empty PostgreSQL database, as
 * three hosts behind a load balancer do: one default workspace is created and one key shown, not three.
 */
describe('the first start of three processes at once on an empty PostgreSQL database', () => {
  let database: TestDatabase | undefined;
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.db.$store.close();
    await database?.drop();
    database = undefined;
  });

  it('creates one default workspace and shows one key', async () => {
    database = await createTestDatabase();
    for (let i = 0; i < 3; i++) runtimes.push(await runtimeOn(database.url));
    // Each pool's connection is open before the starts, so that none waits to connect while another counts.
    await Promise.all(runtimes.map((runtime) => runtime.db.$store.transaction(() => runtime.db.get(sql`select 1`))));
    const created = await Promise.all(runtimes.map((runtime) => ensureDefaultWorkspace(runtime)));
    expect(created.filter((answer) => answer !== null)).toHaveLength(1);
    expect((await runtimes[0]!.db.select({ n: count() }).from(workspaces).get())!.n).toBe(1);
  });
});
