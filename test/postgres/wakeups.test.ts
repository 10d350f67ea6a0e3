import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PostgresStore } from '../../db/engine/postgres-store.ts';
import { openPostgresDatabase } from '../../db/postgres.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { Runtime } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import type { Job } from '../../src/core/wakeups.ts';
import { eventually } from '../helpers/eventually.ts';
import { createTestDatabase, onServer, type TestDatabase } from '../helpers/postgres.ts';
import { TEST_ENCRYPTION_KEY } from '../helpers/runtime.ts';

/** Two processes' runtimes on one database, as `serve` and `worker` would be. */
describe('wake-ups across processes on PostgreSQL', () => {
  let database: TestDatabase;
  let one: Runtime;
  let other: Runtime;
  /** What each runtime's schedulers were woken for, in order. */
  let heardByOne: Job[];
  let heardByOther: Job[];

  const open = async () =>
    openRuntime({
      config: loadConfig({ DATABASE_URL: database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'warn' }),
      db: await openPostgresDatabase(database.url, { max: 2 }),
    });
  const record = (runtime: Runtime, heard: Job[]) => {
    for (const job of ['publishing', 'webhooks', 'generation'] as const)
      runtime.wakeups.listen(job, () => heard.push(job));
  };
  const listenerPid = (runtime: Runtime) => (runtime.db.$store as PostgresStore).wakeups.listenerPid;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeEach(async () => {
    database = await createTestDatabase();
    [one, other] = [await open(), await open()];
    heardByOne = [];
    heardByOther = [];
    record(one, heardByOne);
    record(other, heardByOther);
    await eventually(
      'both LISTEN connections are open',
      () => listenerPid(one) !== null && listenerPid(other) !== null,
    );
  });

  afterEach(async () => {
    await one?.db.$store.close();
    await other?.db.$store.close();
    await database?.drop();
  });

  it("reaches the other process's schedulers, and this process's once", async () => {
    one.wake('publishing');
    expect(heardByOne).toEqual(['publishing']);
    await eventually('the other process hears it', () => heardByOther.includes('publishing'));
    expect(heardByOther).toEqual(['publishing']);
    // Its own notification comes back to it too, and is passed over: it woke its schedulers already.
    other.wake('generation');
    await eventually('the first process hears the other', () => heardByOne.includes('generation'));
    await pause(200);
    expect(heardByOne).toEqual(['publishing', 'generation']);
    expect(heardByOther).toEqual(['publishing', 'generation']);
  });

  it('is sent with the commit of the unit that woke it, and never for one rolled back', async () => {
    await one.db.$store.transaction(async () => {
      one.wake('webhooks');
      // Inside the open transaction: not delivered yet (the wait is the test's, not core's).
      await pause(300);
      expect(heardByOther).toEqual([]);
    });
    await eventually('heard once committed', () => heardByOther.includes('webhooks'));
    await expect(
      one.db.$store.transaction(async () => {
        one.wake('publishing');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    one.wake('generation');
    await eventually('the later wake-up arrives', () => heardByOther.includes('generation'));
    await pause(200);
    expect(heardByOther).toEqual(['webhooks', 'generation']);
  });

  it('reconnects after its LISTEN connection is killed, wakes everything once for the gap, and hears again', async () => {
    const killed = listenerPid(other)!;
    await onServer((client) => client.query('select pg_terminate_backend($1)', [killed]));
    await eventually('a new LISTEN connection', () => ![null, killed].includes(listenerPid(other)), 10_000);
    // What was sent while it was down went unheard: every job is woken once, polling's work done early.
    expect(heardByOther.sort()).toEqual(['generation', 'publishing', 'webhooks']);
    heardByOther.length = 0;
    one.wake('webhooks');
    await eventually('heard on the new connection', () => heardByOther.includes('webhooks'));
  });

  it('ends its LISTEN connection when the store closes', async () => {
    const pid = listenerPid(other)!;
    await other.db.$store.close();
    await eventually('the server has no such backend', async () =>
      onServer(async (client) => {
        const { rows } = await client.query('select 1 from pg_stat_activity where pid = $1', [pid]);
        return rows.length === 0;
      }),
    );
  });
});
