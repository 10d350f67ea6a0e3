/**
 * The delivery policy's defaults, which configuration falls back to. They import nothing, so
 * config.ts can read them without importing the policy (which reads the configuration).
 */

/**
 * Seconds to wait before attempts 2 to 6 when `WEBHOOK_RETRY_DELAYS` does not say otherwise: six
 * attempts in all, the last about seven hours after the first. After the last one the delivery is
 * dead-lettered (its job `dead`, its log row `failed`).
 */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [30, 120, 600, 3_600, 21_600];

/** How long the delivery log and finished jobs are kept when `WEBHOOK_LOG_RETENTION_DAYS` is not set. */
export const DEFAULT_LOG_RETENTION_DAYS = 30;
