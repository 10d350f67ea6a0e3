import { randomBytes } from 'node:crypto';
import type { Reply } from './shared/http-fake.ts';

/** TikTok's `log_id`: a timestamp and a random tail, as its support asks for. */
export function logId(): string {
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  return `${stamp}${randomBytes(9).toString('hex').toUpperCase()}`;
}

/** Every API answer, successes included, carries the error object; `ok` on success. */
export function apiAnswer(data: unknown): Reply {
  return { status: 200, json: { data, error: { code: 'ok', message: '', log_id: logId() } } };
}

export function apiError(status: number, code: string, message: string): Reply {
  return { status, json: { data: {}, error: { code, message, log_id: logId() } } };
}

export const accessTokenInvalid = (): Reply =>
  apiError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');

export const scopeNotAuthorized = (scope: string): Reply =>
  apiError(
    401,
    'scope_not_authorized',
    `The user did not authorize the scope required for completing this request (${scope}).`,
  );

export const invalidParams = (message: string): Reply => apiError(400, 'invalid_params', message);

export const rateLimitExceeded = (): Reply =>
  apiError(429, 'rate_limit_exceeded', 'API rate limit exceeded, please retry after some time.');

export const internalError = (): Reply =>
  apiError(500, 'internal_error', 'Something went wrong. Please try again later.');

export const notFound = (): Reply => apiError(404, 'not_found', 'The requested path is not served.');

/** The Login Kit endpoints answer OAuth-style errors instead of the API's envelope. */
export function oauthError(status: number, error: string, description: string): Reply {
  return { status, json: { error, error_description: description, log_id: logId() } };
}
