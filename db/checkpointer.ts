import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './client.ts';

/**
 * By default SQLite checkpoints the WAL inside whichever commit crosses 1,000 pages, and a
 * checkpoint fsyncs: measured here, that alone made a content create ~40% slower. A long-running
 * process instead checkpoints once a second from a worker thread with its own connection, so no
 * request waits on an fsync. PASSIVE copies the bulk without blocking anyone; under steady writes
 * it never quite catches up, so RESTART then copies the last frames and rewinds the WAL, holding
 * writers only for that moment. journal_size_limit trims the file after a busy spell.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    db.pragma('wal_checkpoint(RESTART)');
  } catch (error) {
    parentPort.postMessage(String(error));
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** `report` hears the checkpointer's own failures (the process's logger; db/ cannot import it). */
export function startBackgroundCheckpoints(
  db: Db,
  intervalMs = 1000,
  report: (message: string, error?: unknown) => void = (message, error) => console.error(message, error ?? ''),
): Checkpointer {
  const sqlite = db.$client;
  sqlite.pragma('journal_size_limit = 67108864');
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file: sqlite.name, intervalMs, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
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
