import type { ErrorCode } from '../core/errors.ts';

/**
 * The HTTP status of a dashboard page that answers with an error of each code. The dashboard's own
 * table, not the API's (doors do not import each other); today the statuses are the API's. Keyed by
 * ErrorCode, so a code cannot be added in the core without its status here.
 */
export const PAGE_STATUS: Record<ErrorCode, number> = {
  invalid_body: 400,
  no_updates: 400,
  unknown_tool: 400,
  missing_key: 401,
  invalid_key: 401,
  expired_key: 401,
  payment_required: 402,
  plan_forbidden: 403,
  quota_exceeded: 403,
  origin_not_allowed: 403,
  host_not_allowed: 403,
  forbidden: 403,
  invalid_request_origin: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  no_target_platforms: 422,
  unprocessable_entity: 422,
  platform_not_configured: 422,
  invalid_return_url: 422,
  credentials_refused: 422,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  internal: 500,
  platform_unavailable: 502,
  sign_in_refused: 401,
  invalid_link: 404,
  weak_password: 400,
  wrong_password: 400,
  email_taken: 409,
  invalid_connect_state: 400,
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  unusable_client_metadata: 400,
};

/** The HTTP status of a page that answers with an error of `code`. */
export const pageStatus = (code: ErrorCode): number => PAGE_STATUS[code];

/** The title of the page a refused form action answers with. */
export const actionErrorTitle = (code: ErrorCode): string => (code === 'not_found' ? 'Not found' : 'That did not work');

/**
 * A form body the parser refused before any page saw it, as body-parser reports it (an http-error with
 * a 4xx `status` and a `type`; an undecodable Content-Encoding is zlib's error with a 400): its status
 * and what to tell the person. Too large is 413, an unknown charset or encoding 415, the rest 400.
 */
export function unreadableForm(error: unknown): { status: number; message: string } | undefined {
  const { status, type, code } = (error ?? {}) as { status?: unknown; type?: unknown; code?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const fromParser = typeof type === 'string' || (typeof code === 'string' && /^(Z_|ERR__)/.test(code));
  if (!fromParser) return undefined;
  if (status === 413) {
    return {
      status,
      message: 'The form is larger than the dashboard accepts. Shorten what you typed and send it again.',
    };
  }
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return {
      status: 415,
      message: 'The form was sent in an encoding the dashboard cannot read. Send it again from the dashboard page.',
    };
  }
  return { status: 400, message: 'The form arrived incomplete or garbled. Send it again from the dashboard page.' };
}
