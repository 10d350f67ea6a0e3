import type { Reply } from './shared/http-fake.ts';

/**
 * The Graph API's error envelope, as graph.instagram.com answers it: `code` says the family, the
 * content-publishing `error_subcode` (2207xxx) says what went wrong, and the `error_user_*` fields
 * carry the sentence Instagram shows its own users.
 */
export function graphError(
  status: number,
  code: number,
  message: string,
  extra: { subcode?: number; type?: string; userTitle?: string; userMsg?: string; transient?: boolean } = {},
): Reply {
  return {
    status,
    json: {
      error: {
        message,
        type: extra.type ?? 'OAuthException',
        code,
        ...(extra.subcode !== undefined && { error_subcode: extra.subcode }),
        is_transient: extra.transient ?? false,
        ...(extra.userTitle && { error_user_title: extra.userTitle }),
        ...(extra.userMsg && { error_user_msg: extra.userMsg }),
        fbtrace_id: `AfakeTrace${Math.random().toString(36).slice(2, 12)}`,
      },
    },
  };
}

export const invalidToken = (): Reply => graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');

export const expiredToken = (): Reply =>
  graphError(400, 190, 'Error validating access token: Session has expired.', { subcode: 463 });

export const revokedToken = (): Reply =>
  graphError(
    400,
    190,
    'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
    {
      subcode: 460,
    },
  );

export const missingPermission = (permission: string): Reply =>
  graphError(403, 10, `Application does not have permission for this action (${permission} is required).`);

export const noSuchObject = (id: string, verb: 'get' | 'post'): Reply =>
  graphError(
    400,
    100,
    `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { subcode: 33, type: 'GraphMethodException' },
  );

export const invalidParameter = (message: string, subcode?: number): Reply =>
  graphError(400, 100, message, { ...(subcode !== undefined && { subcode }) });

/** The canned refusals tests can script on any route (`script.failNext`). */
export const INSTAGRAM_ERRORS = {
  /** Application-level throttling: code 4, with the usage header Meta sends. */
  throttled: (): Reply => ({
    ...graphError(400, 4, 'Application request limit reached', { transient: true }),
  }),
  unavailable: (): Reply => graphError(503, 2, 'Service temporarily unavailable', { transient: true }),
  unknown: (): Reply => graphError(500, 1, 'An unknown error has occurred.', { transient: true }),
  notReady: (): Reply =>
    graphError(400, 9007, 'The media is not ready for publishing, please wait for a moment', {
      subcode: 2207027,
      userTitle: 'Media ID is not available',
      userMsg: 'The media is not ready for publishing, please wait for a moment',
    }),
  fetchFailed: (): Reply =>
    graphError(400, 9004, 'Only photo or video can be accepted as media type.', {
      subcode: 2207052,
      userTitle: 'Media download has failed.',
      userMsg:
        'The media could not be fetched from this URI. Please make sure the URI is valid and publicly reachable.',
    }),
  downloadTimeout: (): Reply =>
    graphError(400, -2, 'Timeout', {
      subcode: 2207003,
      userTitle: 'Media download timed out',
      userMsg: 'It took too long to download the media.',
    }),
  expired: (): Reply =>
    graphError(400, -2, 'The media container has expired', {
      subcode: 2207020,
      userTitle: 'Media expired',
      userMsg: 'The media you are trying to access has expired. Please try to generate a new container ID.',
    }),
  quota: (): Reply =>
    graphError(400, 9, 'Application request limit reached', {
      subcode: 2207042,
      userTitle: 'Publishing limit reached',
      userMsg: 'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
    }),
  spam: (): Reply =>
    graphError(400, -1, 'Unexpected error', {
      subcode: 2207001,
      userTitle: 'Post flagged as spam',
      userMsg: 'Instagram has identified this activity as spam and blocked it.',
    }),
  restricted: (): Reply =>
    graphError(400, 9, 'The user is restricted', {
      subcode: 2207050,
      userTitle: 'Restricted account',
      userMsg: 'The Instagram account is restricted or inactive and cannot publish.',
    }),
} as const;

export type InstagramErrorName = keyof typeof INSTAGRAM_ERRORS;

/** api.instagram.com's token endpoint answers its own, older shape. */
export function tokenEndpointError(message: string, status = 400): Reply {
  return { status, json: { error_type: 'OAuthException', code: status, error_message: message } };
}
