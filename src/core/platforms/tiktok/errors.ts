/**
 * TikTok's refusals sorted into the framework's error kinds. Every TikTok API answer, successes
 * included, carries `{error: {code, message, log_id}}` with `code: "ok"` on success; messages quote the
 * code, TikTok's words and the log id (what TikTok support asks for), never a request: headers carry
 * the token and upload URLs carry an upload secret.
 */
import { rateLimitReset } from '../http.ts';
import { PlatformError, type PlatformErrorKind } from '../platform-client.ts';

/** What a failed call was about: the post itself, its media, or a status look-up. */
export type TikTokCallSubject = 'post' | 'media' | 'read';

/** TikTok's error object, as far as it could be read. */
export interface TikTokErrorBody {
  code: string;
  message: string;
  logId: string | undefined;
}

/** Codes that say the token (or the scopes it carries) is no good: only a new consent fixes them. */
const REAUTH_CODES = new Set(['access_token_invalid', 'scope_not_authorized', 'scope_permission_missed']);

/** Codes that refuse the post as it is, or the account's right to post now. */
const REJECTED_CODES = new Set([
  'privacy_level_option_mismatch',
  'unaudited_client_can_only_post_to_private_accounts',
  'reached_active_user_cap',
  'url_ownership_unverified',
]);

/** Codes (and status `fail_reason`s) that refuse a media file: its format, length, size, or its download. */
export const MEDIA_CODES = new Set([
  'file_format_check_failed',
  'duration_check_failed',
  'frame_rate_check_failed',
  'picture_size_check_failed',
  'video_pull_failed',
  'photo_pull_failed',
  'invalid_file_upload',
]);

/** What to do, per code, when TikTok's own words are not enough. */
const ADVICE: Record<string, string> = {
  privacy_level_option_mismatch:
    "The privacy level is not among those TikTok offers this account now; pick one of the account's options in platform_specific.tiktok.privacy_level.",
  unaudited_client_can_only_post_to_private_accounts:
    "This TikTok app has not passed TikTok's audit, so it may post only as SELF_ONLY (private); use that level or have the app audited.",
  reached_active_user_cap: "The TikTok app's daily quota of posting users is reached; try again tomorrow.",
  url_ownership_unverified:
    'TikTok downloads media only from domains verified for the app; verify the domain of PUBLIC_BASE_URL in the TikTok developer portal.',
  spam_risk_too_many_posts: 'The account has posted too much today; try again later.',
  spam_risk_user_banned_from_posting: 'TikTok does not let this account post at the moment.',
  rate_limit_exceeded:
    'TikTok allows 6 post initializations a minute per account; the call is retried after the limit resets.',
};

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const text = (value: unknown, max = 300): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, max) : undefined;

/** The `error` object of an answer; `code` is `ok` on success and `unknown` when there is none. */
export function readErrorBody(body: unknown): TikTokErrorBody {
  const error = asRecord(asRecord(body).error);
  return {
    code: text(error.code, 100) ?? 'unknown',
    message: text(error.message) ?? '',
    logId: text(error.log_id, 100),
  };
}

/** `403 "privacy_level_option_mismatch": <message> (log_id …)`. */
export function describeError(status: number | undefined, error: TikTokErrorBody): string {
  const said = error.message ? `: ${error.message.replace(/\.$/, '')}` : '';
  const log = error.logId ? ` (log_id ${error.logId})` : '';
  const code = error.code === 'unknown' ? 'without an error code' : `"${error.code}"`;
  return `${status === undefined ? '' : `${status} `}${code}${said}${log}`;
}

/**
 * The PlatformError for an answer that is not a success: a non-2xx status, or a 2xx whose error code
 * is not `ok`. `subject` names what was sent so that an unknown 4xx refuses the post or the file.
 */
export function tiktokError(
  response: { status: number; headers: Headers },
  body: unknown,
  subject: TikTokCallSubject,
  now: Date = new Date(),
): PlatformError {
  const { status } = response;
  const error = readErrorBody(body);
  const { code } = error;
  const fail = (kind: PlatformErrorKind, advice?: string, retryAt?: Date) =>
    new PlatformError(kind, `TikTok answered ${describeError(status, error)}.${advice ? ` ${advice}` : ''}`, {
      status,
      ...(retryAt && { retryAt }),
    });

  if (REAUTH_CODES.has(code)) return fail('reauth_required', 'Reconnect the TikTok account.');
  if (code === 'rate_limit_exceeded' || status === 429) {
    // TikTok names no reset: without a Retry-After, the framework's shared backoff (5 s, doubling) applies.
    const retryAt = rateLimitReset(response.headers, now);
    return fail('rate_limited', ADVICE.rate_limit_exceeded, retryAt);
  }
  if (code.startsWith('spam_risk') || REJECTED_CODES.has(code)) return fail('content_rejected', ADVICE[code]);
  if (MEDIA_CODES.has(code)) return fail('media_invalid', 'Replace the file with one TikTok accepts.');
  if (status >= 500 || code === 'internal_error') return fail('transient', 'TikTok is failing on its side.');
  if (status === 401) return fail('reauth_required', 'Reconnect the TikTok account.');
  if (subject === 'read') return fail('transient', 'The look-up can be tried again.');
  if (subject === 'media') return fail('media_invalid', 'Replace the file with one TikTok accepts.');
  return fail('content_rejected', 'TikTok refuses the post as it is.');
}

/** The kind a `fail_reason` of a FAILED publish maps to: a media problem, or a refusal of the post. */
export function failReasonKind(reason: string): PlatformErrorKind {
  return MEDIA_CODES.has(reason) ? 'media_invalid' : 'content_rejected';
}
