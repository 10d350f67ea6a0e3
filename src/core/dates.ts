import { z } from 'zod';

/** ISO 8601 with an offset (Z or ±hh:mm); a naive date-time is refused rather than guessed. */
export const dateTimeInput = z.iso
  .datetime({ offset: true, error: 'Expected an ISO 8601 date-time with an offset, such as 2026-05-01T09:00:00Z.' })
  .transform((value) => new Date(value));

/** Every date-time the service answers with: UTC, milliseconds, `Z`. */
export const dateTimeOutput = z.iso.datetime({ precision: 3 });
