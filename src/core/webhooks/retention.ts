import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { preparedStatements, prepareText, writeTransaction } from '../../../db/client.ts';
import { prepareSql } from '../../../db/engine/session.ts';
import type { Runtime } from '../context.ts';

/** Rows examined (and at most deleted) per write transaction: about 2 ms of the write lock (measured). */
const ROWS_PER_BATCH = 500;
/**
 * The least time the prune leaves the write lock free between two batches. A writer of another
 * process that finds the lock taken sleeps and retries (SQLite's busy handler, under busy_timeout),
 * after 1, 2, 5, 10, 15, 20, 25, 25 ms...: a pause longer than any of those sleeps holds one of its
 * retries, so it gets the lock in the pause after the batch it met instead of meeting the next one.
 * The pause is also never shorter than twice the batch, so the prune holds the lock a third of the
 * time at most, on a slow or busy machine too.
 */
const MIN_PAUSE_MS = 25;
const DAY_MS = 86_400_000;

export interface PrunedDeliveryHistory {
  /** Rows of the delivery log deleted. */
  logRows: number;
  /** Finished (delivered or dead) delivery jobs deleted. */
  jobs: number;
}

/**
 * Deletes what WEBHOOK_LOG_RETENTION_DAYS no longer keeps: rows of the delivery log made before
 * the window, and finished jobs (delivered or dead) whose event is older than it. A job still
 * queued is never deleted, nor any log row of a job still queued, whatever their age, so a
 * delivery under way keeps its whole history. The work is cut into short write transactions with
 * a pause between them, so deliveries and requests of every process go on while it runs; `signal`
 * stops it between two batches.
 *
 * Each subscription's rows are walked in the order of an index that starts with the subscription
 * (the log by time, jobs by event time), from a cursor, so a batch examines at most ROWS_PER_BATCH
 * rows whatever it keeps, and no batch walks what an earlier one kept.
 */
export async function pruneDeliveryHistory(runtime: Runtime, signal?: AbortSignal): Promise<PrunedDeliveryHistory> {
  const before = runtime.clock.now().getTime() - runtime.config.webhooks.logRetentionDays * DAY_MS;
  const pruned: PrunedDeliveryHistory = { logRows: 0, jobs: 0 };
  const s = statements(runtime.db);
  for (const { id: webhookId } of await s.subscriptions.all()) {
    let log: { at: number; id: string } | null = { at: -1, id: '' };
    while (log && !signal?.aborted) {
      const cursor = log;
      const batch = await inBatch(runtime, async () => {
        const rows = await s.oldLogRows.all({ webhookId, before, afterAt: cursor.at, afterId: cursor.id });
        for (const row of rows)
          if (!row.jobQueued)
            pruned.logRows += (await s.deleteLogRow.run({ address: row.address, id: row.id })).changes;
        return rows;
      });
      log = batch.length === ROWS_PER_BATCH ? { at: batch.at(-1)!.at, id: batch.at(-1)!.id } : null;
    }
    let jobs: { createdAt: number; id: string } | null = { createdAt: -1, id: '' };
    while (jobs && !signal?.aborted) {
      const cursor = jobs;
      const batch = await inBatch(runtime, async () => {
        const rows = await s.oldJobs.all({
          webhookId,
          before,
          afterCreatedAt: cursor.createdAt,
          afterId: cursor.id,
        });
        for (const row of rows)
          if (row.state !== 'queued')
            pruned.jobs += (await s.deleteJob.run({ address: row.address, id: row.id })).changes;
        return rows;
      });
      jobs = batch.length === ROWS_PER_BATCH ? batch.at(-1)! : null;
    }
  }
  return pruned;
}

/** Runs one batch in its own write transaction, then leaves the lock to others for a while when there is more to do. */
async function inBatch<T extends unknown[]>(runtime: Runtime, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const rows = await writeTransaction(runtime.db, work);
  if (rows.length === ROWS_PER_BATCH) await sleep(Math.max(MIN_PAUSE_MS, 2 * (performance.now() - started)));
  return rows;
}

const statements = preparedStatements((db) => ({
  subscriptions: prepareText<Record<string, never>, { id: string }>(db, `select id from webhooks`),
  // webhook_deliveries_webhook_time_idx (webhook_id, delivered_at, id), from the cursor on. Whether the
  // row's job is still queued is one probe of webhook_jobs' primary key.
  oldLogRows: prepareSql<
    { address: number | null; at: number; id: string; jobQueued: number | boolean },
    { webhookId: string; before: number; afterAt: number; afterId: string }
  >(
    db,
    sql`select ${db.$store.sql.rowAddress('d')} as address, d.delivered_at as at, d.id as id,
       exists (select 1 from webhook_jobs j where j.id = d.job_id and j.state = 'queued') as "jobQueued"
     from webhook_deliveries d
     where d.webhook_id = ${sql.placeholder('webhookId')} and d.delivered_at < ${sql.placeholder('before')}
       and (d.delivered_at, d.id) > (${sql.placeholder('afterAt')}, ${sql.placeholder('afterId')})
     order by d.delivered_at, d.id
     limit ${sql.raw(String(ROWS_PER_BATCH))}`,
  ),
  // Found by its address on SQLite (the rowid, no index between), by its key on PostgreSQL.
  deleteLogRow: prepareSql<never, { address: number | null; id: string }>(
    db,
    sql`delete from webhook_deliveries
      where ${db.$store.sql.atRowAddress('webhook_deliveries', sql`${sql.placeholder('address')}`)} and id = ${sql.placeholder('id')}`,
  ),
  // webhook_jobs_webhook_created_idx (webhook_id, created_at, id), from the cursor on.
  oldJobs: prepareSql<
    { address: number | null; id: string; createdAt: number; state: string },
    { webhookId: string; before: number; afterCreatedAt: number; afterId: string }
  >(
    db,
    sql`select ${db.$store.sql.rowAddress('webhook_jobs')} as address, id, created_at as "createdAt", state
     from webhook_jobs
     where webhook_id = ${sql.placeholder('webhookId')} and created_at < ${sql.placeholder('before')}
       and (created_at, id) > (${sql.placeholder('afterCreatedAt')}, ${sql.placeholder('afterId')})
     order by created_at, id
     limit ${sql.raw(String(ROWS_PER_BATCH))}`,
  ),
  deleteJob: prepareSql<never, { address: number | null; id: string }>(
    db,
    sql`delete from webhook_jobs
      where ${db.$store.sql.atRowAddress('webhook_jobs', sql`${sql.placeholder('address')}`)} and id = ${sql.placeholder('id')}
        and state <> 'queued'`,
  ),
}));
