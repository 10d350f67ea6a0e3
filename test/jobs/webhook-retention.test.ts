import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startBackgroundCheckpoints } from '../../db/checkpointer.ts';
import { runMaintenance } from '../../src/jobs/maintenance.ts';
import { eventually } from '../helpers/eventually.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { ROOT, childEnv, runNode, tempDataDir } from '../helpers/subprocess.ts';
import { sqliteOf } from '../../db/client.ts';
import { onSqliteOnly } from '../helpers/sqlite-only.ts';

const DAY = 86_400_000;
const OLD_LOG_ROWS = 200_000;
const OLD_JOBS = 20_000;

/**
 * The deliverer: another process on the same database file, sending real deliveries to its own
 * receiver in a loop until told to stop. Each write transaction it opens first tries for the lock
 * without waiting; one that finds it taken then waits as production does (busy_timeout), and how
 * long it waited for the lock is what is measured. So a write is counted only when it waited for
 * another writer, not when a machine busy with other work was slow to run it. A process of its own,
 * so the prune's JavaScript cannot hold up its clock. Prints what it measured as JSON. Run from a
 * file, not \`-e\`: the checkpoint worker it starts is evaluated as a script.
 */
const DELIVERER = `
  import { existsSync, renameSync, writeFileSync } from 'node:fs';
  import { join } from 'node:path';
  import { startBackgroundCheckpoints } from '${ROOT}/db/checkpointer.ts';
  import { contextFor } from '${ROOT}/src/core/context.ts';
  import { runOperation } from '${ROOT}/src/core/operation.ts';
  import { drain } from '${ROOT}/src/jobs/drain.ts';
  import { webhookDeliveryJob } from '${ROOT}/src/jobs/webhook-delivery.ts';
  import { createWebhook } from '${ROOT}/src/core/webhooks/operations.ts';
  import { makeContent, makeWorkspace } from '${ROOT}/test/helpers/factories.ts';
  import { openDatabase } from '${ROOT}/db/client.ts';
  import { loadConfig } from '${ROOT}/src/core/config.ts';
  import { openRuntime } from '${ROOT}/src/core/runtime.ts';
  import { TEST_ENCRYPTION_KEY } from '${ROOT}/test/helpers/runtime.ts';
  import { startReceiver } from '${ROOT}/test/helpers/webhook-receiver.ts';

  const dir = process.argv[2];
  const db = openDatabase(join(dir, 'service.db'));
  // Every write transaction of the store begins with its BEGIN IMMEDIATE: timed there.
  const client = db.$client;
  const waits = [];
  let writes = 0;
  const store = db.$store;
  const begin = store.begin;
  store.begin = {
    run: () => {
      writes += 1;
      // First without waiting: a write that gets the lock at once did not wait for anyone, whatever
      // the scheduler made of its wall time on a busy machine.
      client.pragma('busy_timeout = 0');
      try {
        return begin.run();
      } catch (error) {
        if (error.code !== 'SQLITE_BUSY') throw error;
      } finally {
        client.pragma('busy_timeout = 5000');
      }
      const started = performance.now();
      try {
        return begin.run();
      } finally {
        waits.push(performance.now() - started);
      }
    },
  };
  const config = loadConfig({ ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  const runtime = await openRuntime({ config, db });
  const checkpoints = startBackgroundCheckpoints(runtime.db);
  const receiver = await startReceiver();
  const { workspace } = await makeWorkspace(runtime);
  const hook = await runOperation(createWebhook, contextFor(runtime, workspace, 'rest'), { url: receiver.url + '/hook', events: [] });
  // Renamed into place, so the test never reads it half written.
  writeFileSync(join(dir, 'ready.tmp'), hook.id);
  renameSync(join(dir, 'ready.tmp'), join(dir, 'ready'));
  while (!existsSync(join(dir, 'go'))) await new Promise((resolve) => setTimeout(resolve, 10));
  waits.length = 0;
  writes = 0;
  const outcomes = {};
  while (!existsSync(join(dir, 'stop'))) {
    await makeContent(runtime, workspace);
    for (const outcome of await drain(runtime, webhookDeliveryJob(runtime))) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if (outcomes.delivered >= 20 && !existsSync(join(dir, 'delivering'))) writeFileSync(join(dir, 'delivering'), '');
  }
  await checkpoints.stop();
  await receiver.close();
  const sorted = [...waits].sort((a, b) => a - b);
  console.log(JSON.stringify({
    outcomes,
    received: receiver.requests.length,
    writes,
    waited: waits.length,
    p99WaitMs: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
    longest: sorted.slice(-5).map(Math.round),
  }));
`;

interface DelivererReport {
  outcomes: Record<string, number>;
  received: number;
  writes: number;
  waited: number;
  p99WaitMs: number;
  longest: number[];
}

// What it measures is SQLite's one writer: how often the deliverer's writes met the prune's batches
// (test/core/webhooks/retention.test.ts prunes on both engines).
onSqliteOnly.describe('webhook delivery history retention under load on SQLite, with one writer', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('with retention set to 1 day, maintenance prunes 200k old log rows in batches while deliveries go on, every one delivered', async () => {
    const data = tempDataDir('webhook-retention');
    cleanups.push(() => data.remove());
    const file = join(data.dir, 'service.db');
    const at = (name: string) => join(data.dir, name);
    // Migrated before the deliverer starts, so the two processes do not race to create the schema.
    const runtime = await testRuntime({
      file,
      start: new Date().toISOString(),
      env: { WEBHOOK_LOG_RETENTION_DAYS: '1' },
    });
    runtime.clock.now = () => new Date();
    cleanups.push(async () => {
      await runtime.db.$store.close();
    });

    writeFileSync(at('deliverer.mts'), DELIVERER);
    const deliverer = runNode(
      ['--import', 'tsx', at('deliverer.mts'), data.dir],
      { cwd: ROOT, env: childEnv({}) },
      120_000,
    );
    cleanups.push(async () => {
      writeFileSync(at('stop'), '');
      await deliverer;
    });
    await eventually('the deliverer has its subscription', () => existsSync(at('ready')), 30_000);
    const webhookId = readFileSync(at('ready'), 'utf8');

    // Two days old: a log of 200k attempts and 20k finished jobs, written in one transaction.
    const old = Date.now() - 2 * DAY;
    const sqlite = sqliteOf(runtime.db);
    const workspaceId = sqlite
      .prepare<[string], { id: string }>(`select workspace_id as id from webhooks where id = ?`)
      .get(webhookId)!.id;
    const insertLogRow = sqlite.prepare(
      `insert into webhook_deliveries (id, webhook_id, job_id, event_id, event_type, attempt, status, status_code,
         response_body, duration_ms, delivered_at, is_test)
       values (?, ?, ?, ?, 'content.created', 1, 'failed', 500, 'Internal Server Error', 12, ?, 0)`,
    );
    const insertJob = sqlite.prepare(
      `insert into webhook_jobs (id, webhook_id, workspace_id, event_id, state, attempts, next_attempt_at, created_at)
       values (?, ?, ?, ?, 'dead', 6, ?, ?)`,
    );
    sqlite.transaction(() => {
      for (let i = 0; i < OLD_LOG_ROWS; i++) {
        const n = String(i).padStart(7, '0');
        insertLogRow.run(`whd_old${n}`, webhookId, `job_old${n}`, `evt_old${n}`, old + i);
      }
      for (let i = 0; i < OLD_JOBS; i++) {
        const n = String(i).padStart(7, '0');
        insertJob.run(`job_old${n}`, webhookId, workspaceId, `evt_old${n}`, old + i, old + i);
      }
    })();
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    // As a serving process runs: checkpoints from a worker thread, not inside commits.
    const checkpoints = startBackgroundCheckpoints(runtime.db);
    cleanups.push(() => checkpoints.stop());

    writeFileSync(at('go'), '');
    await eventually('deliveries are under way', () => existsSync(at('delivering')), 30_000);
    const delivered = sqlite.prepare<[string, number], { n: number }>(
      `select count(*) as n from webhook_deliveries where webhook_id = ? and delivered_at >= ?`,
    );
    const deliveredBefore = delivered.get(webhookId, Date.now() - DAY)!.n;
    const started = performance.now();
    const report = await runMaintenance(runtime);
    const pruneMs = performance.now() - started;
    const deliveredDuring = delivered.get(webhookId, Date.now() - DAY)!.n - deliveredBefore;
    writeFileSync(at('stop'), '');
    const finished = await deliverer;

    expect(finished.code, finished.stderr).toBe(0);
    const deliveries = JSON.parse(finished.stdout) as DelivererReport;
    console.log(
      `pruned ${report.prunedDeliveryLogRows} log rows and ${report.prunedDeliveryJobs} jobs in ${Math.round(pruneMs)} ms; ` +
        `meanwhile ${deliveredDuring} deliveries, ${deliveries.writes} writes of the deliverer (${deliveries.waited} found the lock taken), ${JSON.stringify(deliveries.outcomes)}, ` +
        `the longest waits ${deliveries.longest.join(', ')} ms, p99 ${deliveries.p99WaitMs.toFixed(1)} ms`,
    );
    expect(report).toMatchObject({ prunedDeliveryLogRows: OLD_LOG_ROWS, prunedDeliveryJobs: OLD_JOBS });
    // Deliveries went on all along, and none failed.
    expect(deliveredDuring).toBeGreaterThan(10);
    expect(Object.keys(deliveries.outcomes)).toEqual(['delivered']);
    expect(deliveries.received).toBe(deliveries.outcomes.delivered);
    // Writes did meet the prune's batches (it does not hold the lock for the whole prune). How long
    // they waited is a timing, printed above and not asserted: under a loaded machine its single
    // longest wait swings from 35 to 150 ms, so it belongs in a benchmark, not in a test.
    expect(deliveries.waited).toBeGreaterThan(0);
    expect(deliveries.waited).toBeLessThan(deliveries.writes);
    // What the deliverer wrote is young: all of it is still there.
    expect(
      sqlite
        .prepare<[string], { n: number }>(`select count(*) as n from webhook_deliveries where webhook_id = ?`)
        .get(webhookId)!.n,
    ).toBe(deliveries.outcomes.delivered);
  }, 180_000);
});
