import { createHmac } from 'node:crypto';
import { TEST_START } from './runtime.ts';

let issued = 0;

/**
 * Meta's signed_request, built independently of the code under test: base64url(HMAC-SHA256 over the
 * encoded payload) "." base64url(JSON payload). A payload object without issued_at gets one within
 * the minute before `now` (by default the test clock's start), a different second each call, so no
 * two are alike (a platform never sends the same request twice).
 */
export function signedRequest(payload: unknown, secret: string, now: Date = new Date(TEST_START)): string {
  const dated =
    typeof payload === 'object' && payload !== null && !Array.isArray(payload) && !('issued_at' in payload)
      ? { issued_at: Math.floor(now.getTime() / 1000) - (issued++ % 60), ...payload }
      : payload;
  const body = Buffer.from(JSON.stringify(dated)).toString('base64url');
  return `${createHmac('sha256', secret).update(body).digest('base64url')}.${body}`;
}
