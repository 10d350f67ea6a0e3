/**
 * Threads' refusals sorted into the framework's error kinds. graph.threads.net answers Meta's Graph
 * envelope, so the token, permission, throttle and outage families are Meta's (meta/errors.ts);
 * what is Threads' own is the publish of a container that is not FINISHED yet (code 24, subcode
 * 4279009, as users report it), the publishing limit, and media Threads could not fetch.
 */
import { graphErrorBody, metaErrorFamily, regainAccessAt, trimSentence, type GraphErrorBody } from '../meta/errors.ts';
import { PlatformError, type PlatformErrorKind } from '../platform-client.ts';

/** Which kind of call was refused: a container, the publish, or a look-up. */
export type ThreadsCallContext = 'container' | 'publish' | 'read';

/** `threads_publish` before the container is FINISHED: a definite refusal that made nothing; poll, then publish. */
export class ThreadsContainerNotReady extends PlatformError {}

const NOT_READY_SUBCODES = new Set([4279009]);
/** Media Threads could not download (the URL is not public, or too slow): nothing was made. */
const FETCH_FAILURE_SUBCODES = new Set([2207052, 2207003]);
/** The account's 24-hour publishing limit (threads_publishing_limit) is used up. */
const LIMIT_SUBCODES = new Set([2207042]);

/** `400 (code 24, subcode 4279009) "The media is not ready": …`, from what Threads said. */
export function describeThreadsError(status: number, error: GraphErrorBody): string {
  const codes = [
    error.code !== undefined && `code ${error.code}`,
    error.subcode !== undefined && `subcode ${error.subcode}`,
  ];
  const listed = codes.filter(Boolean);
  const title = error.userTitle;
  const detail = error.userMessage ?? error.message;
  let said = `${status}${listed.length ? ` (${listed.join(', ')})` : ''}`;
  if (title) said += ` "${title}"`;
  if (detail && detail !== title) said += `: ${trimSentence(detail)}`;
  return said;
}

/** The PlatformError for a non-2xx answer. `subject` names what was sent ("the post", "media 2 of 3"). */
export function threadsError(
  response: { status: number; headers: Headers },
  body: unknown,
  context: ThreadsCallContext,
  subject: string,
  now: Date,
): PlatformError {
  const { status } = response;
  const error = graphErrorBody(body) ?? {};
  const said = describeThreadsError(status, error);
  const fail = (kind: PlatformErrorKind, advice: string, extra: { retryAt?: Date } = {}) =>
    new PlatformError(kind, `Threads answered ${said} to ${subject}. ${advice}`, { status, ...extra });
  const has = (codes: Set<number>) => error.subcode !== undefined && codes.has(error.subcode);
  const family = metaErrorFamily(status, error);

  if (family === 'reauth') {
    return fail('reauth_required', 'Threads no longer accepts the access token; reconnect the Threads account.');
  }
  if (family === 'permission') {
    return fail(
      'reauth_required',
      'The app lacks a permission it needs (threads_content_publish); reconnect the Threads account and grant it.',
    );
  }
  if (has(NOT_READY_SUBCODES)) {
    return new ThreadsContainerNotReady(
      'media_invalid',
      `Threads answered ${said} to ${subject}. The media is still being processed.`,
      {
        status,
      },
    );
  }
  if (has(LIMIT_SUBCODES)) {
    return fail(
      'content_rejected',
      "The account's Threads publishing limit for the last 24 hours is reached; publish again once older posts leave the window.",
    );
  }
  if (family === 'throttle') {
    const retryAt = regainAccessAt(response.headers, now);
    return fail(
      'rate_limited',
      `Threads' rate limit for this app or account is used up; it can be retried ${retryAt ? `after ${retryAt.toISOString()}` : 'later'}.`,
      { ...(retryAt && { retryAt }) },
    );
  }
  if (has(FETCH_FAILURE_SUBCODES)) {
    return fail(
      'transient',
      'Threads could not download the media from its URL; it must be publicly reachable. Nothing was published, so it can be retried.',
    );
  }
  if (family === 'transient') return fail('transient', 'Threads is having trouble; the call can be retried.');
  if (context === 'read') return fail('transient', 'The look-up can be tried again.');
  return fail('content_rejected', 'Threads refuses this post as it is; edit it before publishing again.');
}
