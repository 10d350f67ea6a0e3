import type { Reply } from './shared/http-fake.ts';

/** X API v2 answers errors as RFC 7807 problem details. */
export function problem(status: number, title: string, detail: string, extra: Record<string, unknown> = {}): Reply {
  return {
    status,
    headers: { 'content-type': 'application/problem+json' },
    json: { title, type: 'about:blank', status, detail, ...extra },
  };
}

export const unauthorized = (): Reply => problem(401, 'Unauthorized', 'Unauthorized');
export const forbidden = (detail = 'Forbidden'): Reply => problem(403, 'Forbidden', detail);
export const notFound = (): Reply => problem(404, 'Not Found Error', 'Not Found');

/** The shape of X's schema-validation failures: one entry per refused parameter. */
export function invalidRequest(message: string, parameters: Record<string, unknown> = {}): Reply {
  return {
    status: 400,
    headers: { 'content-type': 'application/problem+json' },
    json: {
      errors: [{ parameters, message }],
      title: 'Invalid Request',
      detail: 'One or more parameters to your request was invalid.',
      type: 'https://api.twitter.com/2/problems/invalid-request',
    },
  };
}

/** Rate limiting: no Retry-After, only the window headers, the reset in Unix seconds. */
export function tooManyRequests(limit: number, resetAtSecs: number): Reply {
  return {
    ...problem(429, 'Too Many Requests', 'Too Many Requests'),
    headers: {
      'content-type': 'application/problem+json',
      'x-rate-limit-limit': String(limit),
      'x-rate-limit-remaining': '0',
      'x-rate-limit-reset': String(resetAtSecs),
    },
  };
}

export const serviceUnavailable = (): Reply => problem(503, 'Service Unavailable', 'Service Unavailable');

/** OAuth token-endpoint errors are plain RFC 6749 JSON, not problem details. */
export function oauthError(status: number, error: string, description: string): Reply {
  return { status, json: { error, error_description: description } };
}
