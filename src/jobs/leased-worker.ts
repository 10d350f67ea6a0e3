import { Cron } from 'croner';
import { AsyncLocalStorage } from 'node:async_hooks';
import { setMaxListeners } from 'node:events';
import { savepoint } from '../../db/client.ts';
import { inNextCommit } from '../core/batch.ts';
import type { Runtime } from '../core/context.ts';
import { isDatabaseUnavailable } from '../core/errors.ts';

/** Timers only wake a worker; a timer further out than this is re-armed, so a changed queue is seen. */
const MAX_TIMER_MS = 60_000;
const FAILED_PASS_RETRY_MS = 1_000;

/** What a leased-row worker does; the loop around it (`startLeasedWorker`) is the same for every job. */
export interface LeasedJob<Claim, Outcome = unknown> {
  name: string;
  /** Items one process holds at once. */
  capacity: number;
  /** Claims up to `free` due items (leased rows). Runs inside a group commit, in a savepoint. */
  claim(free: number, inHand: Iterable<Claim>): Promise<Claim[]>;
  /**
   * Works one claimed item to its end. `stopping` is aborted when the worker stops: a job whose
   * items are safe to hand back (a webhook attempt) cuts them short; one whose items are not (a
   * platform call) ignores it and is given until the stop's deadline.
   */
  process(claim: Claim, stopping: AbortSignal): Promise<Outcome>;
  /** Finishes an item whose `process` threw, so it is not reclaimed and failed forever. */
  abandon(claim: Claim, error: unknown): Promise<unknown>;
  /** When the earliest queued item comes due after `now` (ms), or null. */
  nextDueAfter(now: Date): Promise<number | null>;
  /** Extends the leases of the items in hand; called every `renewEveryMs`. */
  renew?: { everyMs: number; run(claims: Iterable<Claim>): Promise<unknown> };
  /** Subscribes to this process's wake-ups; returns the unsubscribe. */
  listen(wake: () => void): () => void;
}

export interface Worker {
  /**
   * Stops claiming, aborts `stopping` for the items in hand and waits for them to finish, until
   * `deadline` (ms since the epoch, real time) at most. Resolves with how many were still in hand
   * then: their leases run out and another process takes them over, as after a crash.
   */
  stop(deadline?: number): Promise<number>;
}

/** Claims up to `free` due items of `job`, as every pass does. */
export function claimItems<Claim>(
  runtime: Runtime,
  job: LeasedJob<Claim, unknown>,
  free: number,
  inHand: Iterable<Claim>,
): Promise<Claim[]> {
  // Claims join the group commit of the items' own writes instead of committing on their own.
  return inNextCommit(runtime.db, () => savepoint(runtime.db, () => job.claim(free, inHand)));
}

/** What became of an item whose `process` threw: it was finished with `abandon` (or left to its lease). */
export const ABANDONED = 'abandoned';

/**
 * Works one claimed item to its end: its outcome, or, when `process` throws, `abandoned` once the
 * item is finished with the error (a failure to finish it too leaves it to its lease running out).
 * The database out of reach is not the item's fault: the item is left to its lease, and taken over
 * and resumed once the database is back, not finished as failed.
 */
export async function workItem<Claim, Outcome>(
  runtime: Runtime,
  job: LeasedJob<Claim, Outcome>,
  claim: Claim,
  stopping: AbortSignal,
): Promise<Outcome | typeof ABANDONED> {
  try {
    return await job.process(claim, stopping);
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      runtime.log.warn(
        { err: error, job: job.name },
        `${job.name}: the database went away; the item is left to its lease`,
      );
      return ABANDONED;
    }
    runtime.log.error({ err: error, job: job.name }, `${job.name}: an item failed; finishing it with the error`);
    try {
      await job.abandon(claim, error);
    } catch (error) {
      runtime.log.error(
        { err: error, job: job.name },
        `${job.name}: finishing the item failed too; its lease will be reclaimed`,
      );
    }
    return ABANDONED;
  }
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
export function startLeasedWorker<Claim, Outcome>(runtime: Runtime, job: LeasedJob<Claim, Outcome>): Worker {
  const inHand = new Map<Promise<unknown>, Claim>();
  let passQueued = false;
  let passRunning = false;
  let passAgain = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let currentPass: Promise<void> = Promise.resolve();
  const stopping = new AbortController();
  // Passes run in the context the worker was started in, outside every unit: a wake-up sent from
  // inside a unit (an event recorded in a publishing run's finish) would otherwise start the pass in
  // that unit's async context, and the pass's claim would join that unit's transaction, interleaving
  // its statements and savepoints with the unit's own on one PostgreSQL connection.
  const outsideUnits = AsyncLocalStorage.snapshot();
  // Every item in hand may listen to it at once (an HTTP request removes its listener when it ends):
  // more than Node's default of 10 listeners is the design, not a leak.
  setMaxListeners(job.capacity + 1, stopping.signal);

  const schedulePass = () => {
    if (stopped) return;
    if (passRunning) passAgain = true;
    if (passQueued || passRunning) return;
    passQueued = true;
    setImmediate(() =>
      outsideUnits(() => {
        currentPass = pass();
      }),
    );
  };

  const pass = async () => {
    passQueued = false;
    if (stopped) return;
    const free = job.capacity - inHand.size;
    passRunning = true;
    // The timer is armed from before the claim: an item that comes due while the claim waits for its
    // commit was not claimable when the claim looked, and must not fall outside "due after now" either.
    const lookedAt = runtime.clock.now();
    try {
      const claims = await claimItems(runtime, job, free, inHand.values());
      for (const claim of claims) {
        const work = workItem(runtime, job, claim, stopping.signal).finally(() => {
          inHand.delete(work);
          schedulePass();
        });
        inHand.set(work, claim);
      }
      await armTimer(lookedAt);
    } catch (error) {
      runtime.log.error({ err: error, job: job.name }, `${job.name}: pass failed`);
      // Tried again soon rather than at the next poll: a claim that gave way to a request's lock
      // (waitForLocksAtMost) or met a database hiccup has due work left behind.
      clearTimeout(timer);
      timer = setTimeout(schedulePass, FAILED_PASS_RETRY_MS);
      timer.unref();
    } finally {
      passRunning = false;
      if (passAgain) {
        passAgain = false;
        schedulePass();
      }
    }
  };

  const armTimer = async (lookedAt: Date) => {
    const next = await job.nextDueAfter(lookedAt);
    clearTimeout(timer);
    if (next === null || stopped) return;
    const wait = next - runtime.clock.now().getTime();
    timer = setTimeout(schedulePass, Math.max(0, Math.min(wait, MAX_TIMER_MS)));
    timer.unref();
  };

  const renewal = job.renew
    ? setInterval(() => {
        if (inHand.size === 0) return;
        job.renew!.run(inHand.values()).catch((error: unknown) => {
          runtime.log.error({ err: error, job: job.name }, `${job.name}: renewing leases failed`);
        });
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
    async stop(deadline) {
      stopped = true;
      backstop.stop();
      stopListening();
      clearTimeout(timer);
      await currentPass;
      stopping.abort();
      const finished = Promise.all(inHand.keys());
      if (deadline === undefined) await finished;
      else {
        let expiry: NodeJS.Timeout | undefined;
        await Promise.race([
          finished,
          new Promise((resolve) => (expiry = setTimeout(resolve, Math.max(0, deadline - Date.now())).unref())),
        ]);
        clearTimeout(expiry);
      }
      clearInterval(renewal);
      return inHand.size;
    },
  };
}
