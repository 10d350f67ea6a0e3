/**
 * The Graph API's refusals sorted into the framework's error kinds. Graph answers
 * `{"error":{"message","type","code","error_subcode","fbtrace_id"}}`, mostly with HTTP 400 whatever the
 * cause, so the kind comes from the code and subcode, never from the status alone. Each message
 * quotes Graph's own code and text, then says what to do.
 */
import { graphErrorBody, metaErrorFamily, trimSentence, regainAccessAt, type GraphErrorBody } from '../meta/errors.ts';
import { PlatformError, type PlatformErrorKind } from '../platform-client.ts';

export { graphErrorBody } from '../meta/errors.ts';

/** Which kind of call was refused: the same code 100 means a bad post, a bad file, or a failed look-up. */
export type FacebookCallContext = 'post' | 'media' | 'read';

// Token, permission, throttle and outage codes are Meta's (meta/errors.ts); these are Facebook's own.
const DUPLICATE_CODES = new Set([506]);
const DUPLICATE_SUBCODES = new Set([1366051]);
/** 368: temporarily blocked for policy; 1346003 and 1404102: the content itself breaks a rule. */
const POLICY_CODES = new Set([368]);
const POLICY_SUBCODES = new Set([1346003, 1404102]);
/** A photo or video Facebook could not fetch or read: 324 invalid image, 352 format, 381/382 video, 389 fetch, 390 timeout, 6000 upload. */
const MEDIA_CODES = new Set([324, 352, 381, 382, 389, 390, 6000]);

/** `400 (#190/463) "Error validating access token: …" (fbtrace_id …)`, from what Graph said. */
export function describeGraphError(status: number, error: GraphErrorBody | undefined): string {
  if (!error) return String(status);
  const code =
    error.code !== undefined ? ` (#${error.code}${error.subcode !== undefined ? `/${error.subcode}` : ''})` : '';
  const message = error.message ? ` "${trimSentence(error.message.replace(/^\(#\d+\)\s*/, ''))}"` : '';
  const trace = error.fbtraceId ? ` (fbtrace_id ${error.fbtraceId})` : '';
  return `${status}${code}${message}${trace}`;
}

/**
 * The PlatformError for a non-2xx Graph answer. `subject` names what was being sent ("the post",
 * "photo 2 of 3") so the message points at what to change.
 */
export function facebookError(
  response: { status: number; headers: Headers },
  body: unknown,
  context: FacebookCallContext,
  subject: string,
  now: Date,
): PlatformError {
  const { status } = response;
  const error = graphErrorBody(body);
  const said = describeGraphError(status, error);
  const fail = (kind: PlatformErrorKind, advice: string, extra: { retryAt?: Date } = {}) =>
    new PlatformError(kind, `Facebook answered ${said} to ${subject}. ${advice}`, { status, ...extra });
  const code = error?.code;
  const subcode = error?.subcode;
  const has = (codes: Set<number>, value: number | undefined) => value !== undefined && codes.has(value);
  const family = metaErrorFamily(status, error);

  if (family === 'reauth') {
    return fail(
      'reauth_required',
      'Facebook no longer accepts the Page access token (a password change, a lost Page role or the app removed); reconnect the Facebook Page.',
    );
  }
  if (has(DUPLICATE_CODES, code) || has(DUPLICATE_SUBCODES, subcode)) {
    return fail('duplicate', 'The Page already posted the same text; change the text to post it again.');
  }
  if (has(POLICY_CODES, code) || has(POLICY_SUBCODES, subcode)) {
    return fail(
      'content_rejected',
      'Facebook refuses this post under its Community Standards; edit it before publishing again.',
    );
  }
  if (family === 'throttle') {
    const retryAt = regainAccessAt(response.headers, now);
    return fail(
      'rate_limited',
      `Facebook's rate limit for this app or Page is used up; it can be retried ${retryAt ? `after ${retryAt.toISOString()}` : 'later'}.`,
      { ...(retryAt && { retryAt }) },
    );
  }
  // Permission errors (10, 200–299) come from what the login granted: a permission declined or
  // withdrawn (pages_manage_posts, publish_video), or the user's Page role without CREATE_CONTENT.
  // Editing the post cannot fix that, and the Page token carries the grant of the login that made it,
  // so the way out is a new login granting it: reauth_required, which asks the user to reconnect.
  if (family === 'permission') {
    return fail(
      'reauth_required',
      'The Page token lacks a permission or the Page role this needs; reconnect the Facebook Page, allowing every permission asked for, as a Page admin who can create content.',
    );
  }
  if (family === 'transient') {
    return fail('transient', 'Facebook is having trouble; the call can be retried.');
  }
  if (has(MEDIA_CODES, code) || context === 'media') {
    return fail(
      'media_invalid',
      'Facebook could not fetch or read this file from its URL; check that the URL is publicly reachable and the file is an image or video Facebook takes.',
    );
  }
  if (context === 'read') return fail('transient', 'The look-up can be tried again.');
  return fail('content_rejected', 'Facebook refuses this post as it is; edit it before publishing again.');
}
