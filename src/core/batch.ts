import { writeTransaction, type Db } from '../../db/client.ts';
import { currentLogContext, withLogContext, type LogContext } from './log.ts';

interface QueuedWork {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** The log context of whoever queued it: the batch runs on the call stack of whoever queued first. */
  logContext: LogContext | undefined;
}

const queues = new WeakMap<Db, QueuedWork[]>();

/**
 * Group commit: runs `work` in one write transaction with every other request's work queued in the
 * same turn of the event loop, and settles once that transaction has committed. Measured in the
 * server, the commit was the largest single cost of a request (every request writes, if only its
 * rate-limit take); a batch shares one commit and the pages it dirties. Each piece of work runs in
 * order and sees the ones before it, exactly as if run alone; a piece that throws must leave the
 * transaction as it found it (run its writes in a savepoint), and fails alone. Only a failure of the
 * transaction itself fails the whole batch.
 */
export function inNextCommit<T>(db: Db, work: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = queues.get(db);
    if (!queue) {
      const batch: QueuedWork[] = [];
      queue = batch;
      queues.set(db, batch);
      setImmediate(() => commitBatch(db, batch));
    }
    queue.push({ work, resolve: resolve as (value: unknown) => void, reject, logContext: currentLogContext() });
  });
}

function commitBatch(db: Db, batch: QueuedWork[]): void {
  queues.delete(db);
  const settlements: Array<() => void> = [];
  try {
    writeTransaction(db, () => {
      for (const { work, resolve, reject, logContext } of batch) {
        try {
          const value = withLogContext(logContext, work);
          settlements.push(() => resolve(value));
        } catch (error) {
          settlements.push(() => reject(error));
        }
      }
    });
  } catch (error) {
    for (const { reject } of batch) reject(error);
    return;
  }
  for (const settle of settlements) settle();
}
