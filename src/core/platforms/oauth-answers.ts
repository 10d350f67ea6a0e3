/**
 * Reading what OAuth token and profile endpoints answer, the same way for every platform: a grant from
 * a 200, a `PlatformError` of the right kind otherwise. Messages name the platform's own error code and
 * description, never a token, a code or a client secret (none of those is ever put into a message).
 */
import type { TokenGrant } from './platform-client.ts';
import { jsonBody, rateLimitReset } from './http.ts';
import { PlatformError } from './platform-client.ts';

/** OAuth errors that say the code or the refresh token is dead: the user must consent again. */
const DEAD_GRANT_ERRORS = new Set(['invalid_grant', 'invalid_request']);

/** Descriptions come from the platform; a bounded slice is enough to act on and keeps logs tidy. */
const MAX_DESCRIPTION = 300;

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, MAX_DESCRIPTION) : undefined;

/** `expires_in` seconds (a number, or a numeric string as some gateways send) as a moment after `now`. */
function expiryAfter(now: Date, seconds: unknown): Date | null {
  const value = typeof seconds === 'string' && /^\d+$/.test(seconds) ? Number(seconds) : seconds;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return null;
  return new Date(now.getTime() + value * 1000);
}

/** X separates scopes with spaces (as RFC 6749 says), LinkedIn with commas: both are read. */
export function parseScopes(value: unknown): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  const scopes = value.split(/[\s,]+/).filter(Boolean);
  return scopes.length ? scopes : undefined;
}

/**
 * A token endpoint's answer as a grant. `step` says what was asked (for the message and the kind):
 * a refused code exchange or refresh (`invalid_grant`, or `invalid_request`, which X answers for a
 * reused refresh token and LinkedIn for a bad code) is `reauth_required`; a 429 `rate_limited`; a 5xx
 * `transient`; any other refusal (a wrong client id or secret) `content_rejected`, with a message
 * that points at the app's credentials, since consenting again would not help.
 */
export async function readTokenAnswer(
  platformName: string,
  step: 'code exchange' | 'token refresh',
  response: Response,
  now: Date,
): Promise<TokenGrant> {
  const body = asRecord(await jsonBody(response));
  if (response.ok) {
    const accessToken = text(body.access_token) ?? '';
    if (!accessToken) {
      throw new PlatformError(
        'transient',
        `${platformName} answered the ${step} with ${response.status} but no access_token.`,
        { status: response.status },
      );
    }
    const refreshToken = typeof body.refresh_token === 'string' && body.refresh_token ? body.refresh_token : null;
    const scopes = parseScopes(body.scope);
    return {
      // Not `text()`: a token is kept whole, however long.
      accessToken: String(body.access_token),
      refreshToken,
      expiresAt: expiryAfter(now, body.expires_in),
      refreshTokenExpiresAt: refreshToken ? expiryAfter(now, body.refresh_token_expires_in) : null,
      ...(scopes && { scopes }),
    };
  }
  const code = text(body.error) ?? text(body.code) ?? 'no error code';
  const description = text(body.error_description) ?? text(body.message);
  const said = `${platformName} refused the ${step} with ${response.status} "${code}"${description ? `: ${description}` : ''}`;
  if (response.status === 429) {
    const retryAt = rateLimitReset(response.headers, now);
    throw new PlatformError('rate_limited', `${said}. Try again later.`, {
      status: 429,
      ...(retryAt && { retryAt }),
    });
  }
  if (response.status >= 500) {
    throw new PlatformError('transient', `${said}. The platform is having trouble; try again shortly.`, {
      status: response.status,
    });
  }
  if (DEAD_GRANT_ERRORS.has(code)) {
    throw new PlatformError(
      'reauth_required',
      step === 'code exchange'
        ? `${said}. The authorization code was refused (used, expired or not issued to this app); connect the account again.`
        : `${said}. The account's authorization is no longer valid; reconnect the account.`,
      { status: response.status },
    );
  }
  throw new PlatformError(
    'content_rejected',
    `${said}. Check the app's client id and secret and its registered callback URL.`,
    { status: response.status },
  );
}

/**
 * A failed profile read. 401 means the fresh token is refused (`reauth_required`); 429 `rate_limited`;
 * a 5xx `transient`; anything else `content_rejected` with the platform's words.
 */
export async function profileFailure(platformName: string, response: Response, now: Date): Promise<PlatformError> {
  const body = asRecord(await jsonBody(response));
  // X answers problem+json (`title`), LinkedIn `code` and a numeric `serviceErrorCode`.
  const serviceCode = typeof body.serviceErrorCode === 'number' ? String(body.serviceErrorCode) : undefined;
  const code = text(body.code) ?? serviceCode ?? text(body.title) ?? text(body.error) ?? 'no error code';
  const description = text(body.detail) ?? text(body.message) ?? text(body.error_description);
  const said = `${platformName} refused the profile read with ${response.status} "${code}"${description ? `: ${description}` : ''}`;
  if (response.status === 401) {
    return new PlatformError('reauth_required', `${said}. Connect the account again.`, { status: 401 });
  }
  if (response.status === 429) {
    const retryAt = rateLimitReset(response.headers, now);
    return new PlatformError('rate_limited', `${said}. Try again later.`, { status: 429, ...(retryAt && { retryAt }) });
  }
  if (response.status >= 500) {
    return new PlatformError('transient', `${said}. Try again shortly.`, { status: response.status });
  }
  return new PlatformError('content_rejected', `${said}.`, { status: response.status });
}

/** The profile endpoint's JSON object, or a `transient` error when the answer is not one. */
export async function profileBody(platformName: string, response: Response): Promise<Record<string, unknown>> {
  const body = await jsonBody(response);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new PlatformError('transient', `${platformName} answered the profile read with something that is not JSON.`, {
      status: response.status,
    });
  }
  return body as Record<string, unknown>;
}
