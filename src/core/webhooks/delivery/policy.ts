import type { Config } from '../../config.ts';
import type { AttemptResult } from '../attempt-result.ts';

// The defaults configuration falls back to, kept apart so config.ts need not import the policy.
export { DEFAULT_LOG_RETENTION_DAYS, DEFAULT_RETRY_DELAYS_SECONDS } from './defaults.ts';

/**
 * The delivery policy in one place: when an attempt counts as delivered, when the next one is made,
 * when a subscription is disabled for failing, when a delivery is given up, and how long the log is kept.
 */

/** A delivery still queued this long after its event is given up: logged `failed` with the body "expired". */
export const EXPIRY_MS = 72 * 3_600_000;
/** What the log says of a delivery given up at EXPIRY_MS. */
export const EXPIRED_RESPONSE_BODY = 'expired';

/** This many failed attempts (test deliveries aside) inside AUTO_DISABLE_WINDOW_MS disable the subscription. */
export const AUTO_DISABLE_FAILURES = 5;
export const AUTO_DISABLE_WINDOW_MS = 3_600_000;

/** A 2xx answer is delivered; anything else (a 3xx included, or no answer at all) failed. */
export const isDelivered = (result: AttemptResult): boolean => result.statusCode >= 200 && result.statusCode < 300;

/** What an attempt's outcome makes of its delivery. */
export type AttemptVerdict =
  { status: 'delivered' } | { status: 'pending_retry'; retryAfterMs: number } | { status: 'failed' };

/** The log status of attempt `attempt` (1 to 6 by default) that got `result`, and when the next one is due. */
export function judgeAttempt(config: Config, attempt: number, result: AttemptResult): AttemptVerdict {
  if (isDelivered(result)) return { status: 'delivered' };
  const delays = config.webhooks.retryDelaysSeconds;
  if (attempt > delays.length) return { status: 'failed' };
  return { status: 'pending_retry', retryAfterMs: delays[attempt - 1]! * 1000 };
}
