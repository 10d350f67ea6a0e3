/**
 * X's refusals sorted into the framework's error kinds. X API v2 answers errors as problem+json
 * (`title`, `detail`, `type`, and for schema failures an `errors` list); each message quotes X's own
 * status and title so the user sees what X said, followed by what to do about it.
 */
import { PlatformError, type PlatformErrorKind } from '../platform-client.ts';
import { rateLimitReset } from '../http.ts';

/** Which kind of call was refused: the same 400 means a bad post, a bad file, or a failed look-up. */
export type XCallContext = 'tweet' | 'media' | 'read';

interface XProblem {
  title?: unknown;
  detail?: unknown;
  type?: unknown;
  errors?: unknown;
}

/**
 * 403s that no edit of the post can fix: the account or the app has lost the right to post (a
 * suspended user, an unenrolled app, a token without the needed scopes). Reconnecting is the user's
 * way out, as other schedulers treat them too.
 */
const ACCOUNT_PROBLEMS = ['suspended', 'unsupported authentication', 'missing required scopes'];

/**
 * The PlatformError for a non-2xx answer from X. `subject` names what was being sent ("the post",
 * "media 2 of 3 (image/png)") so the message points at the file or the text to change.
 */
export function xAnswerError(
  response: { status: number; headers: Headers },
  body: unknown,
  context: XCallContext,
  subject: string,
  now: Date = new Date(),
): PlatformError {
  const { status } = response;
  const said = describeProblem(status, body);
  const fail = (kind: PlatformErrorKind, advice: string, extra: { retryAt?: Date } = {}) =>
    new PlatformError(kind, `X answered ${said} to ${subject}. ${advice}`, { status, ...extra });

  if (status === 401) {
    return fail('reauth_required', 'X refused the access token; reconnect the X account.');
  }
  if (status === 429) {
    const retryAt = rateLimitReset(response.headers, now);
    const when = retryAt ? `after ${retryAt.toISOString()}` : 'later';
    return fail('rate_limited', `The X rate limit for this call is used up; it can be retried ${when}.`, {
      ...(retryAt && { retryAt }),
    });
  }
  if (status >= 500) return fail('transient', 'X is having trouble; the call can be retried.');
  if (status === 403) {
    const words = problemWords(body);
    if (words.includes('duplicate content')) {
      return fail('duplicate', 'This account already posted the same text; change the text to post it again.');
    }
    // The app's monthly cap, or an app not enrolled for this endpoint: the operator's to fix (or wait
    // out); no account is at fault, so none is sent to reconnect.
    if (['usage-capped', 'usagecap', 'client-forbidden', 'client forbidden'].some((marker) => words.includes(marker))) {
      return fail(
        'content_rejected',
        "The X app may not post right now (its usage cap for the period is reached, or it is not enrolled for this endpoint); the operator must raise the app's plan or fix its project setup, or wait for X to reset the cap.",
      );
    }
    if (ACCOUNT_PROBLEMS.some((marker) => words.includes(marker))) {
      return fail(
        'reauth_required',
        'The X account or app may not post right now; check the account on x.com, then reconnect it.',
      );
    }
    return fail('content_rejected', 'X refuses this post as it is; edit it before publishing again.');
  }
  if (context === 'media') {
    return fail('media_invalid', 'X refuses this file; replace it with one X accepts.');
  }
  if (context === 'read') {
    // A failed look-up says nothing about the post itself, so it never reads as a refusal.
    return fail('transient', 'The look-up can be tried again.');
  }
  return fail('content_rejected', 'X refuses this post as it is; edit it before publishing again.');
}

/** `403 "Forbidden": You are not allowed to …` from X's title, detail and first schema error. */
function describeProblem(status: number, body: unknown): string {
  const problem = (typeof body === 'object' && body !== null ? body : {}) as XProblem;
  const title = typeof problem.title === 'string' ? problem.title : undefined;
  const detail = typeof problem.detail === 'string' ? problem.detail : undefined;
  const firstError = firstErrorMessage(problem.errors);
  // A schema failure's detail is generic ("One or more parameters ... was invalid"); its error says which.
  const explanation = firstError ?? detail;
  const quoted = title ? `${status} "${title}"` : String(status);
  return explanation && explanation !== title ? `${quoted} (${trimSentence(explanation)})` : quoted;
}

function firstErrorMessage(errors: unknown): string | undefined {
  if (!Array.isArray(errors)) return undefined;
  const first = errors[0] as { message?: unknown } | undefined;
  return typeof first?.message === 'string' ? first.message : undefined;
}

/** Everything X said, lower-cased, for matching the few refusals that change the error's kind. */
function problemWords(body: unknown): string {
  const problem = (typeof body === 'object' && body !== null ? body : {}) as XProblem;
  return [problem.title, problem.detail, problem.type, firstErrorMessage(problem.errors)]
    .filter((part): part is string => typeof part === 'string')
    .join(' ')
    .toLowerCase();
}

function trimSentence(text: string): string {
  const trimmed = text.trim().replace(/\.$/, '');
  return trimmed.length > 300 ? `${trimmed.slice(0, 297)}...` : trimmed;
}
