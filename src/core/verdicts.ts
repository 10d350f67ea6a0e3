import type { ErrorCode } from './errors.ts';

/**
 * What every policy answers for one action: allowed, or refused with a code and a plain reason.
 * Plain data with no imports beyond a type, so the MCP App views (a browser bundle) read verdicts
 * with the same words as the server.
 */
export type Verdict<A extends string = string> =
  { action: A; allowed: true } | { action: A; allowed: false; code: ErrorCode; reason: string };

/** The verdict on `action` among `verdicts` (as reads give them back). */
export const verdictOf = <A extends string>(verdicts: readonly Verdict<A>[], action: A): Verdict<A> | undefined =>
  verdicts.find((one) => one.action === action);

/** Whether `verdicts` allow `action`: what a door asks before it shows the action. */
export const allows = <A extends string>(verdicts: readonly Verdict<A>[] | undefined, action: A): boolean =>
  verdicts?.some((one) => one.action === action && one.allowed) ?? false;
