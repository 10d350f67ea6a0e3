/**
 * What Meta's Graph APIs (Facebook, Instagram, Threads) share in their refusals: the envelope
 * `{"error":{"message","type","code","error_subcode","error_user_title","error_user_msg","is_transient","fbtrace_id"}}`,
 * mostly with HTTP 400 whatever the cause, and the code families every Meta API gives the same
 * meaning. Each platform's own codes (duplicates, media, publishing limits) and its wording stay in
 * its folder; the kind a family maps to is decided here, once.
 */
import { retryAfterAt } from '../http.ts';
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
