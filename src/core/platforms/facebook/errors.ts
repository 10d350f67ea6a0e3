/**
 * The Graph API's refusals sorted into the framework's error kinds. Graph answers
 * `{"error":{"message","type","code","error_subcode","fbtrace_id"}}`, mostly with HTTP 400 whatever the
 * cause, so the kind comes from the code and subcode, never from the status alone. Each message
 * quotes Graph's own code and text, then says what to do.
 */
import { PlatformError, type PlatformErrorKind } from '../platform-client.ts';
import { usageRegainAt } from './usage.ts';

/** Which kind of call was refused: the same code 100 means a bad post, a bad file, or a failed look-up. */
export type FacebookCallContext = 'post' | 'media' | 'read';

export interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  subcode?: number;
  isTransient?: boolean;
  fbtraceId?: string;
}

/** Token errors: expired, invalidated (password change, logged out), app removed; 102 is an old session error. */
const REAUTH_CODES = new Set([102, 190]);
const REAUTH_SUBCODES = new Set([458, 460, 463, 467, 1404078]);
const DUPLICATE_CODES = new Set([506]);
const DUPLICATE_SUBCODES = new Set([1366051]);
/** 368: temporarily blocked for policy; 1346003 and 1404102: the content itself breaks a rule. */
const POLICY_CODES = new Set([368]);
const POLICY_SUBCODES = new Set([1346003, 1404102]);
/** App (4), user (17), Page (32), per-call (613) and business use case (80001–80014) throttles. */
const THROTTLE_CODES = new Set([4, 17, 32, 613]);
/**
 * "You're posting too fast" (1390008) is listed with the policy errors, but what it asks is to wait:
 * nothing about the post is wrong, so it is retried like a throttle within the retry window.
 */
const THROTTLE_SUBCODES = new Set([1390008]);
/** Graph's own outages: unknown error, service unavailable; `is_transient` says so too. */
const TRANSIENT_CODES = new Set([1, 2]);
/** A photo or video Facebook could not fetch or read: 324 invalid image, 352 format, 381/382 video, 389 fetch, 390 timeout, 6000 upload. */
const MEDIA_CODES = new Set([324, 352, 381, 382, 389, 390, 6000]);

export function graphErrorBody(body: unknown): GraphErrorBody | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const field = (name: string) => (error as Record<string, unknown>)[name];
  const number = (name: string) => (typeof field(name) === 'number' ? (field(name) as number) : undefined);
  const text = (name: string) => (typeof field(name) === 'string' ? (field(name) as string) : undefined);
  return {
    ...(text('message') !== undefined && { message: text('message')! }),
    ...(text('type') !== undefined && { type: text('type')! }),
    ...(number('code') !== undefined && { code: number('code')! }),
    ...(number('error_subcode') !== undefined && { subcode: number('error_subcode')! }),
    ...(field('is_transient') === true && { isTransient: true }),
    ...(text('fbtrace_id') !== undefined && { fbtraceId: text('fbtrace_id')! }),
  };
}

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

  if (has(REAUTH_CODES, code) || has(REAUTH_SUBCODES, subcode)) {
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
  if (
    has(THROTTLE_CODES, code) ||
    (code !== undefined && code >= 80001 && code <= 80014) ||
    has(THROTTLE_SUBCODES, subcode)
  ) {
    const retryAt = usageRegainAt(response.headers, now);
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
  if (code === 10 || (code !== undefined && code >= 200 && code <= 299)) {
    return fail(
      'reauth_required',
      'The Page token lacks a permission or the Page role this needs; reconnect the Facebook Page, allowing every permission asked for, as a Page admin who can create content.',
    );
  }
  if (status >= 500 || error?.isTransient || has(TRANSIENT_CODES, code)) {
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

function trimSentence(text: string): string {
  const trimmed = text.trim().replace(/\.$/, '');
  return trimmed.length > 300 ? `${trimmed.slice(0, 297)}...` : trimmed;
}

/** The same error with every occurrence of `secret` masked: Graph's text is quoted, and must never carry a token. */
export function withoutSecret(error: unknown, secret: string): unknown {
  if (!(error instanceof PlatformError) || !secret || !error.message.includes(secret)) return error;
  return new PlatformError(error.kind, error.message.replaceAll(secret, '[redacted]'), error.details);
}
