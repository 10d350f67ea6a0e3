import { z } from 'zod';
import { fieldError } from './errors.ts';

/** The last instant an answer can show as `YYYY-…Z`: a later one would need a six-digit year. */
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * ISO 8601 with an offset (Z or ±hh:mm); a naive date-time is refused rather than guessed, and so
 * is one whose offset carries it past the year 9999 (`9999-12-31T23:00:00-05:00`), which no answer
 * could show.
 */
export const dateTimeInput = z.iso
  .datetime({ offset: true, error: 'Expected an ISO 8601 date-time with an offset, such as 2026-05-01T09:00:00Z.' })
  .transform((value) => new Date(value))
  .refine((at) => at.getTime() <= LAST_INSTANT, { error: 'Give a date-time up to the year 9999.', abort: true });

/** The range a time to publish at may take: the years 2000 to 9999 (UTC). */
export const SCHEDULE_RANGE = { from: new Date(Date.UTC(2000, 0, 1)), to: new Date(LAST_INSTANT) } as const;

export const isSchedulable = (at: Date): boolean =>
  at.getTime() >= SCHEDULE_RANGE.from.getTime() && at.getTime() <= SCHEDULE_RANGE.to.getTime();

/**
 * A time to publish at (`scheduled_for`, a campaign's `start_date`): a date-time as above, within
 * SCHEDULE_RANGE, so a slip such as the year 0000 is refused instead of publishing at once.
 */
export const scheduleTimeInput = dateTimeInput.refine(
  isSchedulable,
  'Give a date-time from the year 2000 to the year 9999.',
);

/**
 * How far in the past a time to schedule for may be, for a caller whose clock runs a little behind
 * ours (or who sends "now"): five minutes. Such a time is kept and publishes at the next run.
 */
export const SCHEDULE_CLOCK_SKEW_MS = 5 * 60_000;

/** Refuses (400 invalid_body naming `field`) scheduling for a time that has passed, beyond the skew allowed. */
export function assertNotPast(field: string, at: Date, now: Date): void {
  if (at.getTime() < now.getTime() - SCHEDULE_CLOCK_SKEW_MS) {
    throw fieldError(
      field,
      `That time has passed (${at.toISOString()}); schedule for a time from now on, or publish now instead.`,
    );
  }
}

/** Every date-time the service answers with: UTC, milliseconds, `Z`. */
export const dateTimeOutput = z.iso.datetime({ precision: 3 });
