import type { Reply } from './shared/http-fake.ts';

/** LinkedIn's REST error envelope: `status` repeated in the body, a `message`, sometimes codes. */
export function restError(status: number, message: string, extra: Record<string, unknown> = {}): Reply {
  return { status, json: { status, ...extra, message } };
}

export const invalidToken = (): Reply =>
  restError(401, 'Invalid access token', { serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN' });

export const emptyToken = (): Reply => restError(401, 'Empty oauth2 access token', { serviceErrorCode: 65604 });

export const revokedToken = (): Reply =>
  restError(401, 'The token used in the request has been revoked by the user', {
    serviceErrorCode: 65601,
    code: 'REVOKED_ACCESS_TOKEN',
  });

export const accessDenied = (resource: string): Reply =>
  restError(403, `Not enough permissions to access: ${resource}`, { serviceErrorCode: 100, code: 'ACCESS_DENIED' });

export const notFound = (message = 'Not Found'): Reply => restError(404, message, { code: 'RESOURCE_NOT_FOUND' });

/** A refused field, answered the way the Rest.li validator reports input errors. */
export function unprocessable(fieldPath: string, description: string, code = 'INVALID_VALUE'): Reply {
  return restError(422, `ERROR :: ${fieldPath} :: ${description}\n`, {
    errorDetailType: 'com.linkedin.common.error.BadRequest',
    errorDetails: { inputErrors: [{ description, input: { inputPath: { fieldPath } }, code }] },
  });
}

export function duplicatePost(existingUrn: string): Reply {
  return restError(422, `Content is a duplicate of ${existingUrn}`, {
    errorDetailType: 'com.linkedin.common.error.BadRequest',
    errorDetails: { inputErrors: [{ description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' }] },
  });
}

/** LinkedIn's 429 carries no rate-limit headers: daily quotas reset at midnight UTC, unannounced. */
export const throttled = (): Reply =>
  restError(429, 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.');

export const unavailable = (): Reply => restError(503, 'Service Unavailable');

/** The OAuth endpoints answer RFC 6749 JSON instead. */
export function oauthError(status: number, error: string, description: string): Reply {
  return { status, json: { error, error_description: description } };
}
