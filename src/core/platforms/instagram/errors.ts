/**
 * Instagram's refusals sorted into the framework's error kinds. graph.instagram.com answers Meta's
 * Graph envelope (`{error:{message, type, code, error_subcode, error_user_title, error_user_msg}}`):
 * `code` names the family (190 tokens, 4/17/32/613 throttling, 9007 not ready), and the content
 * publishing subcodes (2207xxx) say what happened to the media. Each message quotes the codes and
 * Instagram's own words, then says what to do.
 */
import { graphErrorBody, metaErrorFamily, regainAccessAt, trimSentence, type GraphErrorBody } from '../meta/errors.ts';
import { ContainerExpired } from '../meta/containers.ts';
import { PlatformError, type PlatformErrorKind } from '../platform-client.ts';

/** Which kind of call was refused: the same code means a bad file, a bad post, or a failed look-up. */
export type InstagramCallContext = 'container' | 'publish' | 'read';

/** Meta could not download the media (2207052) or took too long (2207003): nothing was made. */
const FETCH_FAILURES = new Set([2207052, 2207003]);
/** Refusals of the file itself: size, format, aspect ratio, video spec, unknown media type. */
const MEDIA_SUBCODES = new Set([2207004, 2207005, 2207009, 2207023, 2207026]);
// Token, permission, throttle and outage codes are Meta's (meta/errors.ts); these are Instagram's own.

/**
 * Media publish answered 9007: the container is not FINISHED yet; poll again, then publish. Not
 * `transient`: the framework would call an unanswered create call an unknown outcome, while this
 * one is a definite refusal that made nothing.
 */
export class ContainerNotReady extends PlatformError {}

/** The container was not published within 24 h (2207020, or status EXPIRED): Meta's, shared with Threads. */
export { ContainerExpired } from '../meta/containers.ts';

/** The PlatformError for a non-2xx Graph answer. `subject` names what was sent ("the post", "media 2 of 3"). */
export function instagramAnswerError(
  response: { status: number; headers: Headers },
  body: unknown,
  context: InstagramCallContext,
  subject: string,
  now: Date = new Date(),
): PlatformError {
  const { status } = response;
  const error = graphErrorBody(body) ?? {};
  const { code, subcode } = error;
  const family = metaErrorFamily(status, error);
  const said = describe(status, error);
  const fail = (kind: PlatformErrorKind, advice: string, extra: { retryAt?: Date } = {}) =>
    new PlatformError(kind, `Instagram answered ${said} to ${subject}. ${advice}`, { status, ...extra });

  if (family === 'reauth') {
    return fail('reauth_required', 'Instagram no longer accepts the access token; reconnect the Instagram account.');
  }
  if (family === 'permission') {
    return fail(
      'reauth_required',
      'The app lacks a permission it needs (instagram_business_content_publish); reconnect the Instagram account and grant it.',
    );
  }
  if (subcode === 2207042) {
    return fail(
      'content_rejected',
      "The account's Instagram publishing limit for the last 24 hours is reached; publish again once older posts leave the 24-hour window.",
    );
  }
  if (code === 9007) {
    return new ContainerNotReady(
      'media_invalid',
      `Instagram answered ${said} to ${subject}. The media is still being processed.`,
      {
        status,
      },
    );
  }
  if (subcode === 2207020) {
    return new ContainerExpired(
      'media_invalid',
      `Instagram answered ${said} to ${subject}. The media container expired.`,
      {
        status,
      },
    );
  }
  if (family === 'throttle') {
    const retryAt = regainAccessAt(response.headers, now);
    const when = retryAt ? `after ${retryAt.toISOString()}` : 'later';
    return fail(
      'rate_limited',
      `Instagram's rate limit for this app or account is used up; it can be retried ${when}.`,
      {
        ...(retryAt && { retryAt }),
      },
    );
  }
  if (subcode !== undefined && FETCH_FAILURES.has(subcode)) {
    return fail(
      'transient',
      'Instagram could not download the media from its URL; it must be publicly reachable. Nothing was published, so it can be retried.',
    );
  }
  if (family === 'transient') {
    return fail('transient', 'Instagram is having trouble; the call can be retried.');
  }
  if (subcode === 2207001) {
    return fail('content_rejected', 'Instagram blocked this post as spam; change it, or wait before publishing again.');
  }
  if (subcode === 2207050) {
    return fail('content_rejected', 'The Instagram account is restricted or inactive; check it in the Instagram app.');
  }
  if (context === 'read') {
    // Code 100 subcode 33 on a read can be a passing Meta fault; a failed look-up never reads as a refusal.
    return fail('transient', 'The look-up can be tried again.');
  }
  if (subcode !== undefined && MEDIA_SUBCODES.has(subcode)) {
    return fail('media_invalid', 'Instagram refuses this file; replace it with one Instagram accepts.');
  }
  return fail('content_rejected', 'Instagram refuses this post as it is; edit it before publishing again.');
}

/**
 * What api.instagram.com's token endpoint or the Graph token exchanges answered on failure:
 * a refused code or token is `reauth_required`, a bad app secret or id `content_rejected` (the
 * operator's to fix), a 5xx `transient`.
 */
export function instagramTokenError(
  step: string,
  response: { status: number; headers: Headers },
  body: unknown,
  now: Date,
) {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof record.error === 'object' && record.error !== null) {
    const error = instagramAnswerError(response, body, 'read', `the ${step}`, now);
    if (error.kind !== 'transient' || response.status >= 500) return error;
    return new PlatformError(
      'content_rejected',
      `${error.message.replace(/ The look-up can be tried again\.$/, '')} Check INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET.`,
      {
        status: response.status,
      },
    );
  }
  // api.instagram.com answers `{error_type, code, error_message}`.
  const message = typeof record.error_message === 'string' ? record.error_message.slice(0, 300) : undefined;
  const type = typeof record.error_type === 'string' ? record.error_type : 'no error type';
  const said = `Instagram refused the ${step} with ${response.status} "${type}"${message ? `: ${message}` : ''}`;
  if (response.status === 429) return new PlatformError('rate_limited', `${said}. Try again later.`, { status: 429 });
  if (response.status >= 500) {
    return new PlatformError('transient', `${said}. Instagram is having trouble; try again shortly.`, {
      status: response.status,
    });
  }
  if (message && /authorization code|verification code|redirect_uri/i.test(message)) {
    return new PlatformError(
      'reauth_required',
      `${said}. The authorization code was refused (used, expired or not issued for this callback); connect the account again.`,
      { status: response.status },
    );
  }
  return new PlatformError(
    'content_rejected',
    `${said}. Check INSTAGRAM_APP_ID, INSTAGRAM_APP_SECRET and the app's registered callback URL.`,
    { status: response.status },
  );
}

/** `400 (code 9004, subcode 2207052) "Media download has failed.": The media could not be fetched…` */
function describe(status: number, error: GraphErrorBody): string {
  const { code, subcode } = error;
  const codes = [code !== undefined && `code ${code}`, subcode !== undefined && `subcode ${subcode}`].filter(Boolean);
  const title = error.userTitle;
  const detail = error.userMessage ?? error.message;
  let said = `${status}${codes.length ? ` (${codes.join(', ')})` : ''}`;
  if (title) said += ` "${title}"`;
  if (detail && detail !== title) said += `: ${trimSentence(detail)}`;
  return said;
}
