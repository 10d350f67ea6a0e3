/**
 * LinkedIn's error answers sorted into the kinds the publishing framework acts on, each with a
 * message that names LinkedIn's own code and says what to do. Messages quote LinkedIn's `message`,
 * never a request: headers carry the token and upload URLs carry upload secrets.
 */
import { z } from 'zod';
import { rateLimitReset } from '../http.ts';
import { PlatformError, type PlatformErrorKind } from '../platform-client.ts';

/** What a failed call was about: a refusal of the post itself, or of one of its media files. */
export type LinkedInCallSubject = 'post' | 'media';

const ErrorBody = z.object({
  serviceErrorCode: z.number().optional().catch(undefined),
  code: z.string().optional().catch(undefined),
  message: z.string().optional().catch(undefined),
  errorDetails: z
    .object({
      inputErrors: z
        .array(
          z.object({
            code: z.string().optional().catch(undefined),
            description: z.string().optional().catch(undefined),
            input: z
              .object({ inputPath: z.object({ fieldPath: z.string().optional() }).optional() })
              .optional()
              .catch(undefined),
          }),
        )
        .optional()
        .catch(undefined),
    })
    .optional()
    .catch(undefined),
});
type ErrorBody = z.infer<typeof ErrorBody>;

/** Codes LinkedIn's gateway answers for a missing or retired `LinkedIn-Version`. */
const VERSION_CODES = new Set(['VERSION_MISSING', 'NONEXISTENT_VERSION']);

const RECONNECT = 'Reconnect the LinkedIn account.';

/**
 * The PlatformError for a non-2xx answer. `version` is the `LinkedIn-Version` sent, named when
 * LinkedIn refuses it.
 *
 * Two choices worth knowing:
 * - A 403 ACCESS_DENIED on a call this service makes means the token lacks `w_member_social` or
 *   belongs to another member than the account's: only a new consent fixes either, so it is
 *   `reauth_required`. Other 403s refuse the post or file as it is.
 * - A retired or missing version (426, or 400 VERSION_MISSING) is the service's configuration, not
 *   the user's post, but no retry and no reconnect can fix it: it is `content_rejected`, which stops
 *   the attempt, with a message telling the operator to move LINKEDIN_VERSION forward.
 */
export function linkedInError(
  response: { status: number; headers: Headers },
  rawBody: unknown,
  subject: LinkedInCallSubject,
  version: string,
): PlatformError {
  const status = response.status;
  const parsed = ErrorBody.safeParse(rawBody ?? {});
  const body: ErrorBody = parsed.success ? parsed.data : {};
  const inputCodes = (body.errorDetails?.inputErrors ?? []).map((error) => error.code).filter(Boolean);
  const answered = describeAnswer(status, body);
  const refusedKind: PlatformErrorKind = subject === 'media' ? 'media_invalid' : 'content_rejected';
  const error = (kind: PlatformErrorKind, advice: string, retryAt?: Date) =>
    new PlatformError(kind, `${answered}${advice ? ` ${advice}` : ''}`, { status, ...(retryAt && { retryAt }) });

  if (status === 401) return error('reauth_required', RECONNECT);
  if (status === 426 || (body.code !== undefined && VERSION_CODES.has(body.code))) {
    return error(
      'content_rejected',
      `LinkedIn does not serve API version ${version}: set LINKEDIN_VERSION to a month LinkedIn still serves (YYYYMM, within the last year).`,
    );
  }
  if (status === 403) {
    if (body.code === 'ACCESS_DENIED' || body.serviceErrorCode === 100) {
      return error(
        'reauth_required',
        `The connection may not post for this member (the w_member_social permission is missing, or the token is another member's). ${RECONNECT}`,
      );
    }
    return error(refusedKind, '');
  }
  if (status === 422 && inputCodes.includes('DUPLICATE_POST')) {
    return error('duplicate', 'LinkedIn already holds a post with this text from this member.');
  }
  if (status === 429) {
    // LinkedIn sends no rate-limit headers: retryAt stays unknown unless a Retry-After shows up.
    return error(
      'rate_limited',
      "LinkedIn's daily limits reset at midnight UTC.",
      rateLimitReset(response.headers, new Date()),
    );
  }
  if (status >= 500) return error('transient', 'LinkedIn is failing on its side; the publish is retried.');
  if (status >= 400) return error(refusedKind, '');
  return error('transient', 'LinkedIn answered in a way this service does not expect.');
}

/** `LinkedIn answered 422 (DUPLICATE_POST): Content is a duplicate of urn:li:share:1.` */
function describeAnswer(status: number, body: ErrorBody): string {
  const inputErrors = body.errorDetails?.inputErrors ?? [];
  const codes = [
    body.serviceErrorCode !== undefined ? `serviceErrorCode ${body.serviceErrorCode}` : undefined,
    body.code,
    ...inputErrors.map((error) => error.code),
  ].filter((code, index, all): code is string => code !== undefined && all.indexOf(code) === index);
  // Rest.li validation messages already name the field; the input errors say it when none came.
  const said =
    body.message?.replace(/\s+/g, ' ').trim() ||
    inputErrors
      .map((error) => [error.input?.inputPath?.fieldPath, error.description].filter(Boolean).join(' '))
      .filter(Boolean)
      .join('; ');
  const sentence = said ? `: ${said.replace(/\.?$/, '.')}` : '.';
  return `LinkedIn answered ${status}${codes.length > 0 ? ` (${codes.join(', ')})` : ''}${sentence}`;
}
