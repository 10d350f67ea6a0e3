import { describe, expect, it } from 'vitest';
import { pollUntilProcessed, type PollStep } from '../../../src/core/platforms/processing-poll.ts';

/** A fake sleep that records each pause and returns at once. */
function fakeWait() {
  const pauses: number[] = [];
  return { pauses, wait: (ms: number) => Promise.resolve(void pauses.push(ms)) };
}

/** A platform that answers `status` for the first `pending` polls, then `value`. */
function platform<T>(pending: number, value: T, status = 'PROCESSING') {
  let polls = 0;
  return {
    polls: () => polls,
    poll: (): Promise<PollStep<T>> =>
      Promise.resolve(++polls > pending ? { done: true, value } : { done: false, status }),
  };
}

const pacing = { firstPauseMs: 2_000, maxPauseMs: 15_000, giveUpAfterMs: 60_000 };
const gaveUp = (waited: number, status: string) => new Error(`gave up after ${waited} ms at ${status}`);

describe('pollUntilProcessed', () => {
  it('answers the first poll that is done without waiting', async () => {
    const clock = fakeWait();
    const p = platform(0, 'post-1');
    expect(await pollUntilProcessed(clock.wait, pacing, p.poll, gaveUp)).toBe('post-1');
    expect(clock.pauses).toEqual([]);
    expect(p.polls()).toBe(1);
  });

  it('waits ×1.5 longer between polls, rounded, up to the cap', async () => {
    const clock = fakeWait();
    const p = platform(7, 'done');
    expect(await pollUntilProcessed(clock.wait, pacing, p.poll, gaveUp)).toBe('done');
    expect(clock.pauses).toEqual([2_000, 3_000, 4_500, 6_750, 10_125, 15_000, 15_000]);
    expect(p.polls()).toBe(8);
  });

  it('gives up with the last status once the time allowed is spent, after one more poll', async () => {
    const clock = fakeWait();
    const p = platform(Number.POSITIVE_INFINITY, 'never', 'PROCESSING_DOWNLOAD');
    await expect(pollUntilProcessed(clock.wait, pacing, p.poll, gaveUp)).rejects.toThrow(
      'gave up after 71375 ms at PROCESSING_DOWNLOAD',
    );
    // 2,000 + 3,000 + 4,500 + 6,750 + 10,125 + 15,000 + 15,000 + 15,000 = 71,375 ≥ 60,000, then a last poll.
    expect(clock.pauses).toHaveLength(8);
    expect(p.polls()).toBe(9);
  });

  it('ends with the error a poll throws (a failed processing), without waiting again', async () => {
    const clock = fakeWait();
    let polls = 0;
    const poll = (): Promise<PollStep<string>> => {
      polls += 1;
      if (polls === 3) return Promise.reject(new Error('PROCESSING_FAILED'));
      return Promise.resolve({ done: false, status: 'PROCESSING' });
    };
    await expect(pollUntilProcessed(clock.wait, pacing, poll, gaveUp)).rejects.toThrow('PROCESSING_FAILED');
    expect(clock.pauses).toEqual([2_000, 3_000]);
  });
});
