import { Cron } from 'croner';
import { savepoint } from '../../db/client.ts';
import { inNextCommit } from '../core/batch.ts';
import type { Runtime } from '../core/context.ts';

/** Timers only wake a worker; a timer further out than this is re-armed, so a changed queue is seen. */
const MAX_TIMER_MS = 60_000;

/** What a leased-row worker does; the loop around it (`startLeasedWorker`) is the same for every job. */
export interface LeasedJob<Claim> {
  name: string;
  /** Items one process holds at once. */
  capacity: number;
  /** Claims up to `free` due items (leased rows). Runs inside a group commit, in a savepoint. */
  claim(free: number, inHand: Iterable<Claim>): Claim[];
  /** Works one claimed item to its end. */
  process(claim: Claim): Promise<unknown>;
  /** Finishes an item whose `process` threw, so it is not reclaimed and failed forever. */
  abandon(claim: Claim, error: unknown): Promise<unknown>;
  /** When the earliest queued item comes due after `now` (ms), or null. */
  nextDueAfter(now: Date): number | null;
  /** Extends the leases of the items in hand; called every `renewEveryMs`. */
  renew?: { everyMs: number; run(claims: Iterable<Claim>): void };
  /** Subscribes to this process's wake-ups; returns the unsubscribe. */
  listen(wake: () => void): () => void;
}

export interface Worker {
  /** Stops claiming, then waits for the items in hand to finish. */
  stop(): Promise<void>;
}

/**
 * Runs a leased job in this process. A pass claims as many due items as there are free slots and
 * works each; nothing waits for a poll interval:
 * - a wake-up (work was just queued) starts a pass on the next turn of the event loop;
 * - a timer is armed for the earliest future due time;
 * - a finished item frees a slot and starts a pass;
 * - croner runs a pass every `SCHEDULER_POLL_SECONDS` (1) as the backstop: it catches work queued by
 *   other processes on the same database and leases that ran out (also reclaimed at start-up).
 * Passes never overlap (each decides how many slots are free); claims are leased rows, so any
 * number of processes may run the same job on one database.
 */
export function startLeasedWorker<Claim>(runtime: Runtime, job: LeasedJob<Claim>): Worker {
  const inHand = new Map<Promise<unknown>, Claim>();
  let passQueued = false;
  let passRunning = false;
  let passAgain = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let currentPass: Promise<void> = Promise.resolve();

  const schedulePass = () => {
    if (stopped) return;
    if (passRunning) passAgain = true;
    if (passQueued || passRunning) return;
    passQueued = true;
    setImmediate(() => {
      currentPass = pass();
    });
  };

  const pass = async () => {
    passQueued = false;
    if (stopped) return;
    const free = job.capacity - inHand.size;
    passRunning = true;
    try {
      // Claims join the group commit of the items' own writes instead of committing on their own.
      const claims = await inNextCommit(runtime.db, () => savepoint(runtime.db, () => job.claim(free, inHand.values())));
      for (const claim of claims) {
        const work = job
          .process(claim)
          .catch((error: unknown) => {
            console.error(`${job.name}: an item failed; finishing it with the error:`, error);
            return job.abandon(claim, error);
          })
          .catch((error: unknown) => console.error(`${job.name}: finishing the item failed too; its lease will be reclaimed:`, error))
          .finally(() => {
            inHand.delete(work);
            schedulePass();
          });
        inHand.set(work, claim);
      }
      armTimer();
    } catch (error) {
      console.error(`${job.name}: pass failed:`, error);
    } finally {
      passRunning = false;
      if (passAgain) {
        passAgain = false;
        schedulePass();
      }
    }
  };

  const armTimer = () => {
    clearTimeout(timer);
    const now = runtime.clock.now().getTime();
    const next = job.nextDueAfter(new Date(now));
    if (next === null) return;
    timer = setTimeout(schedulePass, Math.min(next - now, MAX_TIMER_MS));
    timer.unref();
  };

  const renewal = job.renew
    ? setInterval(() => {
        try {
          if (inHand.size > 0) job.renew!.run(inHand.values());
        } catch (error) {
          console.error(`${job.name}: renewing leases failed:`, error);
        }
      }, job.renew.everyMs)
    : undefined;
  renewal?.unref();

  // The first poll waits one interval too: the pass at start-up (below) has just looked.
  const pollSeconds = runtime.config.schedulerPollSeconds;
  const backstop = new Cron(
    '* * * * * *',
    { protect: true, unref: true, interval: pollSeconds, startAt: new Date(Date.now() + pollSeconds * 1000) },
    schedulePass,
  );
  const stopListening = job.listen(schedulePass);
  schedulePass();

  return {
    async stop() {
      stopped = true;
      backstop.stop();
      stopListening();
      clearTimeout(timer);
      await currentPass;
      await Promise.all(inHand.keys());
      clearInterval(renewal);
    },
  };
}
