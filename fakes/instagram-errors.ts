/**
 * The refusals graph.instagram.com answers in Meta's envelope (meta-graph.ts) with its own codes:
 * the content-publishing `error_subcode` (2207xxx) says what went wrong, and the `error_user_*` fields
 * carry the sentence Instagram shows its own users. api.instagram.com's token endpoint answers an
 * older envelope of its own.
 */
import type { Reply } from './shared/http-fake.ts';
import { graphError } from './meta-graph.ts';

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
