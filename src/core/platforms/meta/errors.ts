/**
 * What Meta's Graph APIs (Facebook, Instagram, Threads) share in their refusals: the envelope
 * `{"error":{"message","type","code","error_subcode","error_user_title","error_user_msg","is_transient","fbtrace_id"}}`,
 * mostly with HTTP 400 whatever the cause, and the code families every Meta API gives the same
 * meaning. Each platform's own codes (duplicates, media, publishing limits) and its wording stay in
 * its folder; the kind a family maps to is decided here, once.
 */
import { retryAfterAt } from '../http.ts';
import { PlatformError, type PlatformErrorKind } from '../platform-client.ts';
import { ContainerExpired, ContainerNotReady } from './containers.ts';
import { readUsage } from './usage.ts';

export interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  subcode?: number;
  /** Instagram's and Threads' sentence for the user, when given. */
  userTitle?: string;
  userMessage?: string;
  isTransient?: boolean;
  fbtraceId?: string;
}

/** The `error` object of a Graph answer, its fields checked one by one; undefined when there is none. */
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
    ...(text('error_user_title') !== undefined && { userTitle: text('error_user_title')! }),
    ...(text('error_user_msg') !== undefined && { userMessage: text('error_user_msg')! }),
    ...(field('is_transient') === true && { isTransient: true }),
    ...(text('fbtrace_id') !== undefined && { fbtraceId: text('fbtrace_id')! }),
  };
}

/**
 * The families every Meta API shares:
 * - `reauth`: the token is dead (190 expired or invalidated, 102 an old session error, their subcodes,
 *   or the words Instagram uses for a revoked token);
 * - `permission`: a permission declined or withdrawn (10, 200–299): only a new login grants it;
 * - `throttle`: app (4), user (17), Page or account (32), per-call (613) and business use case
 *   (80001–80014) limits, "posting too fast" (subcode 1390008), or a plain 429;
 * - `transient`: Meta's own outages (1, 2, `is_transient`, a 5xx).
 */
export type MetaErrorFamily = 'reauth' | 'permission' | 'throttle' | 'transient';

const REAUTH_CODES = new Set([102, 190]);
const REAUTH_SUBCODES = new Set([458, 460, 463, 467, 1404078]);
const THROTTLE_CODES = new Set([4, 17, 32, 613]);
/**
 * "You're posting too fast" (1390008) is listed with the policy errors, but what it asks is to wait:
 * nothing about the post is wrong, so it is retried like a throttle within the retry window.
 */
const THROTTLE_SUBCODES = new Set([1390008]);
const TRANSIENT_CODES = new Set([1, 2]);

const has = (codes: Set<number>, value: number | undefined) => value !== undefined && codes.has(value);

function mentionsInvalidSession(error: GraphErrorBody): boolean {
  const text = [error.message, error.type].filter(Boolean).join(' ').toLowerCase();
  return text.includes('revoked_access_token') || text.includes('session has been invalidated');
}

/** The shared family of a Graph refusal, or undefined when only the platform's own codes can say. */
export function metaErrorFamily(status: number, error: GraphErrorBody | undefined): MetaErrorFamily | undefined {
  const code = error?.code;
  const subcode = error?.subcode;
  if (has(REAUTH_CODES, code) || has(REAUTH_SUBCODES, subcode) || (error && mentionsInvalidSession(error))) {
    return 'reauth';
  }
  if (code === 10 || (code !== undefined && code >= 200 && code <= 299)) return 'permission';
  if (
    status === 429 ||
    has(THROTTLE_CODES, code) ||
    (code !== undefined && code >= 80001 && code <= 80014) ||
    has(THROTTLE_SUBCODES, subcode)
  ) {
    return 'throttle';
  }
  if (status >= 500 || error?.isTransient || has(TRANSIENT_CODES, code)) return 'transient';
  return undefined;
}

/**
 * When a throttled app, Page or account may call again: the usage headers'
 * `estimated_time_to_regain_access` (minutes), else `Retry-After`. Undefined when neither says.
 */
export function regainAccessAt(headers: Headers, now: Date): Date | undefined {
  const minutes = readUsage(headers).regainMinutes;
  return minutes ? new Date(now.getTime() + minutes * 60_000) : retryAfterAt(headers, now);
}

/** Meta's words for a message: trimmed, without a final period, at most 300 characters. */
export function trimSentence(text: string): string {
  const trimmed = text.trim().replace(/\.$/, '');
  return trimmed.length > 300 ? `${trimmed.slice(0, 297)}...` : trimmed;
}

/**
 * What a container API (Instagram's, Threads') said, for a message: `400 (code 9004, subcode 2207052)
 * "Media download has failed.": The media could not be fetched…`, with the sentence Meta wrote for
 * the user when there is one.
 */
export function describeGraphRefusal(status: number, error: GraphErrorBody): string {
  const { code, subcode } = error;
  const codes = [code !== undefined && `code ${code}`, subcode !== undefined && `subcode ${subcode}`].filter(Boolean);
  const title = error.userTitle;
  const detail = error.userMessage ?? error.message;
  let said = `${status}${codes.length ? ` (${codes.join(', ')})` : ''}`;
  if (title) said += ` "${title}"`;
  if (detail && detail !== title) said += `: ${trimSentence(detail)}`;
  return said;
}

/** Which kind of container API call was refused: the same code means a bad file, a bad post, or a failed look-up. */
export type ContainerCallContext = 'container' | 'publish' | 'read';

/** The account's rolling 24-hour publishing limit is used up (both container APIs answer it). */
const PUBLISHING_LIMIT_SUBCODE = 2207042;
/** Meta could not download the media (2207052) or took too long (2207003): nothing was made. */
const FETCH_FAILURE_SUBCODES = new Set([2207052, 2207003]);

/** What one container API says in codes of its own, beside Meta's families and shared subcodes. */
export interface ContainerApiRefusals {
  name: string;
  /** The app's credential variables, named when a token endpoint refuses them. */
  credentials: string;
  /** The permission publishing needs, named when the token lacks it. */
  publishPermission: string;
  /** The publish of a container that is not FINISHED yet (Instagram's code 9007, Threads' subcode 4279009). */
  isNotReady(error: GraphErrorBody): boolean;
  /** Subcodes saying the container expired before it was published. */
  expiredSubcodes: ReadonlySet<number>;
  /** Refusals of the account or the post itself, by subcode, with what to do about each. */
  refusedSubcodes: ReadonlyMap<number, string>;
  /** Refusals of the file itself (size, format, video spec). */
  mediaSubcodes: ReadonlySet<number>;
}

/** `Instagram's`, `Threads'`. */
export const possessive = (name: string) => (name.endsWith('s') ? `${name}'` : `${name}'s`);

/**
 * The PlatformError for a container API's non-2xx answer. `subject` names what was sent ("the post",
 * "media 2 of 3"); each message quotes the codes and the platform's own words, then says what to do.
 */
export function containerApiError(
  api: ContainerApiRefusals,
  response: { status: number; headers: Headers },
  body: unknown,
  context: ContainerCallContext,
  subject: string,
  now: Date,
): PlatformError {
  const { name } = api;
  const { status } = response;
  const error = graphErrorBody(body) ?? {};
  const { subcode } = error;
  const family = metaErrorFamily(status, error);
  const said = describeGraphRefusal(status, error);
  const fail = (kind: PlatformErrorKind, advice: string, extra: { retryAt?: Date } = {}) =>
    new PlatformError(kind, `${name} answered ${said} to ${subject}. ${advice}`, { status, ...extra });
  const has = (codes: ReadonlySet<number>) => subcode !== undefined && codes.has(subcode);

  if (family === 'reauth') {
    return fail('reauth_required', `${name} no longer accepts the access token; reconnect the ${name} account.`);
  }
  if (family === 'permission') {
    return fail(
      'reauth_required',
      `The app lacks a permission it needs (${api.publishPermission}); reconnect the ${name} account and grant it.`,
    );
  }
  if (subcode === PUBLISHING_LIMIT_SUBCODE) {
    return fail(
      'content_rejected',
      `The account's ${name} publishing limit for the last 24 hours is reached; publish again once older posts leave the 24-hour window.`,
    );
  }
  // Both are definite refusals that made nothing: the publisher polls again, or makes the container again.
  if (api.isNotReady(error)) {
    const message = `${name} answered ${said} to ${subject}. The media is still being processed.`;
    return new ContainerNotReady('media_invalid', message, { status });
  }
  if (has(api.expiredSubcodes)) {
    return new ContainerExpired(
      'media_invalid',
      `${name} answered ${said} to ${subject}. The media container expired.`,
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
      `${possessive(name)} rate limit for this app or account is used up; it can be retried ${when}.`,
      { ...(retryAt && { retryAt }) },
    );
  }
  if (has(FETCH_FAILURE_SUBCODES)) {
    return fail(
      'transient',
      `${name} could not download the media from its URL; it must be publicly reachable. Nothing was published, so it can be retried.`,
    );
  }
  if (family === 'transient') return fail('transient', `${name} is having trouble; the call can be retried.`);
  const refused = subcode === undefined ? undefined : api.refusedSubcodes.get(subcode);
  if (refused) return fail('content_rejected', refused);
  // Code 100 subcode 33 on a read can be a passing Meta fault; a failed look-up never reads as a refusal.
  if (context === 'read') return fail('transient', LOOK_UP_ADVICE);
  if (has(api.mediaSubcodes))
    return fail('media_invalid', `${name} refuses this file; replace it with one ${name} accepts.`);
  return fail('content_rejected', `${name} refuses this post as it is; edit it before publishing again.`);
}

const LOOK_UP_ADVICE = 'The look-up can be tried again.';

/**
 * A token endpoint's refusal in Graph's envelope (the code exchange, the long-lived exchange, a
 * renewal), sorted like any call first. What no family names (OAuthException, code 100) cannot be
 * retried: the code or token is spent, or the app's credentials are wrong. A refused code is the
 * person's to redo (connect again), unless Graph says the client secret is wrong (code 101); that,
 * and a refused exchange or renewal, is the operator's: the message names the variables to check.
 */
export function graphTokenRefusal(
  api: ContainerApiRefusals,
  step: string,
  response: { status: number; headers: Headers },
  body: unknown,
  now: Date,
): PlatformError {
  const error = containerApiError(api, response, body, 'read', `the ${step}`, now);
  if (error.kind !== 'transient' || response.status >= 500) return error;
  const said = error.message.replace(` ${LOOK_UP_ADVICE}`, '');
  if (step === 'code exchange' && graphErrorBody(body)?.code !== 101) {
    return new PlatformError(
      'reauth_required',
      `${said} The authorization code was refused (used, expired or not issued for this callback); connect the account again.`,
      { status: response.status },
    );
  }
  return new PlatformError('content_rejected', `${said} Check ${api.credentials}.`, { status: response.status });
}
