/**
 * The fakes' notion of "now", in milliseconds since the epoch. Tests move it instead of sleeping:
 * token expiry, authorization-code lifetime, rate-limit resets and media processing all read it.
 */
export interface FakeClock {
  now(): number;
  /** Jumps to an absolute time. */
  set(ms: number): void;
  advance(ms: number): void;
}

/** Wraps an injected `now()` (the service's own test clock, say) or, by default, the wall clock. */
export function createFakeClock(base: () => number = Date.now): FakeClock {
  let offset = 0;
  return {
    now: () => base() + offset,
    set: (ms) => {
      offset = ms - base();
    },
    advance: (ms) => {
      offset += ms;
    },
  };
}
