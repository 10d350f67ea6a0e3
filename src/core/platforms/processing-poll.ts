/**
 * Waiting for a platform to finish processing a post or its media (a LinkedIn video, a TikTok
 * publish): poll at once, then after a pause that grows ×1.5 up to a cap, until the platform answers
 * an end or the time allowed is spent. The pauses go through the session's `wait`, so tests move a
 * fake clock instead of sleeping.
 */

/** The pauses between polls and how long to keep polling, in ms. */
export interface PollPacing {
  firstPauseMs: number;
  maxPauseMs: number;
  /** Once this much has been waited, a poll that still finds work in progress gives up. */
  giveUpAfterMs: number;
}

/** What one poll found: the end (its value), or work still in progress (the platform's status word). */
export type PollStep<T> = { done: true; value: T } | { done: false; status: string };

/**
 * Polls with `poll` until it answers done, and answers that value. A poll that throws ends it with
 * that error; a poll still in progress after `giveUpAfterMs` of pauses throws `gaveUp(waitedMs, status)`.
 */
export async function pollUntilProcessed<T>(
  wait: (ms: number) => Promise<void>,
  pacing: PollPacing,
  poll: () => Promise<PollStep<T>>,
  gaveUp: (waitedMs: number, status: string) => Error,
): Promise<T> {
  let pause = pacing.firstPauseMs;
  let waited = 0;
  for (;;) {
    const step = await poll();
    if (step.done) return step.value;
    if (waited >= pacing.giveUpAfterMs) throw gaveUp(waited, step.status);
    await wait(pause);
    waited += pause;
    pause = Math.min(Math.round(pause * 1.5), pacing.maxPauseMs);
  }
}
