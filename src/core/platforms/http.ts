/**
 * The one way live clients reach a platform: `fetch` with a per-request deadline, where a failure to
 * get any answer is a `transient` PlatformError. Nothing here logs: request headers carry tokens.
 */
import { PlatformError } from './platform-client.ts';

/**
 * Sends one request. Resolves with whatever the platform answered (any status); throws a `transient`
 * PlatformError, without `status`, when no answer came (refused, reset, timed out). The message names
 * the platform and the request path, never the headers or the query (an OAuth query holds a code).
 */
export async function platformRequest(
  platformName: string,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : networkReason(error);
    throw new PlatformError('transient', `${platformName} could not be reached (${reason}) on ${pathOf(url)}.`);
  }
}

/** The body as JSON, or null when it is not JSON (an HTML error page, an empty 201). */
export async function jsonBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * The one reading of when a platform lets a client call again: `x-rate-limit-reset` (epoch seconds,
 * X), else `Retry-After`. Undefined when the platform said nothing; the framework then waits 5 s,
 * doubling per refusal (live-connector.ts), the same for every platform.
 */
export function rateLimitReset(headers: Headers, now: Date): Date | undefined {
  const reset = headers.get('x-rate-limit-reset');
  if (reset && /^\d+$/.test(reset)) return new Date(Number(reset) * 1000);
  return retryAfterAt(headers, now);
}

/** `Retry-After` as a moment: seconds after `now`, or an HTTP date. Undefined when absent or unreadable. */
export function retryAfterAt(headers: Headers, now: Date): Date | undefined {
  const retryAfter = headers.get('retry-after')?.trim();
  if (!retryAfter) return undefined;
  if (/^\d+$/.test(retryAfter)) return new Date(now.getTime() + Number(retryAfter) * 1000);
  const at = Date.parse(retryAfter);
  return Number.isNaN(at) ? undefined : new Date(at);
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return 'its API';
  }
}

/** undici wraps the socket error in `cause`; its code (ECONNREFUSED, ECONNRESET, ...) is what helps. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
