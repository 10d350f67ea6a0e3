import type { Db } from '../../db/client.ts';
import { isDatabaseUnavailable } from './errors.ts';

/**
 * Group commit: runs `work` in one write transaction with every other request's work queued in the
 * same turn of the event loop, and settles once that transaction has committed (inside a unit
 * already running, it joins it). Measured in the server, the commit was the largest single cost of
 * a request (every request writes, if only its rate-limit take); a group shares one commit and the
 * pages it dirties. Each piece of work runs in order and sees the ones before it, exactly as if run
 * alone; a piece that throws must leave the transaction as it found it (run its writes in a
 * savepoint), and fails alone. Only a failure of the transaction itself fails the whole group.
 * The work awaits only the database (db/engine/store.ts).
 */
export function inNextCommit<T>(db: Db, work: () => Promise<T> | T): Promise<T> {
  return db.$store.inNextCommit(work);
}

/**
 * For work whose statements are each whole alone (a read's rate-limit take and its reads, one
 * insert): in the next group commit on SQLite, each statement its own commit on PostgreSQL
 * (Store.autocommit).
 */
export function autocommit<T>(db: Db, work: () => Promise<T> | T): Promise<T> {
  return db.$store.autocommit(work);
}

/**
 * Runs `commit` (a whole commit of its own: inNextCommit's work) again while it fails with the
 * database out of reach, every `everyMs`, for at most `forMs`; then its last error. For what is
 * held only in memory until written, such as a platform's answer, which the database coming back
 * within a few seconds (a restart) can still keep. The work must be safe to run again: its checks
 * are read anew each time.
 */
export async function retriedWhileUnreachable<T>(commit: () => Promise<T>, forMs: number, everyMs = 250): Promise<T> {
  const giveUpAt = Date.now() + forMs;
  for (;;) {
    try {
      return await commit();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() + everyMs > giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}
