import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { sqliteOf, type Db } from './client.ts';

/**
 * By default SQLite checkpoints the WAL inside whichever commit crosses 1,000 pages, and a
 * checkpoint fsyncs: measured here, that alone made a content create ~40% slower. A long-running
 * process instead checkpoints once a second from a worker thread with its own connection, so no
 * request waits on an fsync. PASSIVE copies the frames without blocking anyone, and the next
 * writer rewinds the WAL once every frame is copied. Under steady writes that moment may never
 * come, so once the WAL holds 64 MiB of frames a RESTART copies the last frames and
 * rewinds it. Not at every tick: a RESTART holds every writer for its copy and two fsyncs; under
 * the webhook benchmark's steady commits, a RESTART every second made a BEGIN IMMEDIATE wait 157 µs
 * on average, against 16 µs with PASSIVE alone.
 *
 * journal_size_limit trims the file when a writer rewinds it, and that writer truncates while it
 * holds the write lock: with the limit at the same 64 MiB, under a sustained 110 MB/s of WAL
 * (deliveries in a tight loop while the retention prune deletes 200k rows) other writers waited
 * 54-104 ms for it, in about two runs of three. At four times the RESTART point the file is
 * trimmed only after a spell the checkpoints could not keep up with, and the longest wait of those
 * runs fell to 10-23 ms (test/jobs/webhook-retention.test.ts).
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const checkpoint = (rewind) => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (rewind || log * workerData.pageSize >= workerData.restartBytes) db.pragma('wal_checkpoint(RESTART)');
  } catch (error) {
    parentPort.postMessage(String(error));
  }
};
const timer = setInterval(() => checkpoint(false), workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  // The last one rewinds the WAL whatever its size, so the next start does not begin with a long log.
  checkpoint(true);
  db.close();
  parentPort.close();
});
`;

const RESTART_BYTES = 64 * 1024 * 1024;
const JOURNAL_SIZE_LIMIT = 4 * RESTART_BYTES;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** `report` hears the checkpointer's own failures (the process's logger; db/ cannot import it). */
export function startBackgroundCheckpoints(
  db: Db,
  intervalMs = 1000,
  report: (message: string, error?: unknown) => void = (message, error) => console.error(message, error ?? ''),
): Checkpointer {
  // PostgreSQL checkpoints itself; SQLite's WAL is this process's to keep short.
  if (db.$store.engine !== 'sqlite') return { stop: async () => {} };
  const sqlite = sqliteOf(db, 'The WAL checkpointer');
  sqlite.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      file: sqlite.name,
      intervalMs,
      pageSize: sqlite.pragma('page_size', { simple: true }),
      restartBytes: RESTART_BYTES,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
  });
  worker.on('message', (message) => report(`WAL checkpoint failed: ${message}`));
  worker.on('error', (error) => {
    // Without the worker, fall back to SQLite's own checkpoints rather than let the WAL grow.
    report('WAL checkpoint worker stopped', error);
    if (sqlite.open) sqlite.pragma('wal_autocheckpoint = 1000');
  });
  worker.unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        // Held while it finishes: an unref'd worker would let the process exit before the last checkpoint.
        worker.ref();
        worker.postMessage('stop');
      }),
  };
}
