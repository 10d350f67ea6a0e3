import type { ErrorRequestHandler, Response } from 'express';
import {
  asServiceError,
  errorEnvelope,
  RateLimitError,
  ServiceError,
  ServiceUnavailableError,
  type ErrorCode,
  type RateLimitState,
} from '../core/errors.ts';
import type { Logger } from '../core/log.ts';

/**
 * The API's errors over HTTP, shared by the doors that answer with its envelope (REST, and /mcp before
 * the transport runs), so neither imports the other; the composition root (src/app.ts) mounts the
 * translator once, after every route.
 */

/**
 * The HTTP status of every code (the core names what went wrong, the door picks
 * the status). Keyed by ErrorCode, so a code cannot be added in the core without its status here.
 */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_body: 400,
  no_updates: 400,
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
  unknown_tool: 400,
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
  internal: 500,
  platform_unavailable: 502,
  service_unavailable: 503,
};

export function setRateLimitHeaders(res: Response, state: RateLimitState): void {
  res.set({
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  });
}

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** An error as the API shapes it: the `{ error: { code, message, docs_url } }` envelope, or the distinct 429 body. */
export function errorResponse(error: ServiceError, docsUrl: string): ErrorResponse {
  const status = ERROR_STATUS[error.code];
  if (error instanceof RateLimitError) {
    return {
      status,
      headers: {
        'X-RateLimit-Limit': String(error.state.limit),
        'X-RateLimit-Remaining': String(error.state.remaining),
        'X-RateLimit-Reset': String(error.state.reset),
        'Retry-After': String(error.retryAfter),
      },
      body: { object: 'error', type: 'rate_limit_exceeded', message: error.message, retry_after: error.retryAfter },
    };
  }
  const headers: Record<string, string> =
    error instanceof ServiceUnavailableError ? { 'Retry-After': String(error.retryAfter) } : {};
  return { status, headers, body: errorEnvelope(error, docsUrl) };
}

export function sendError(res: Response, error: ServiceError, docsUrl: string): void {
  const { status, headers, body } = errorResponse(error, docsUrl);
  res.set(headers).status(status).json(body);
}

/** Body-parser failures arrive as http-errors with a `type`; each becomes its spec error. */
function fromBodyParser(error: { type?: string; status?: number; code?: unknown }): ServiceError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new ServiceError('invalid_body', 'The body is not valid JSON.');
    case 'entity.too.large':
      return new ServiceError('payload_too_large', 'The body is larger than the limit.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ServiceError('unsupported_media_type', 'Send the body as UTF-8 JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
      return new ServiceError('invalid_body', 'The body was cut short.');
    default:
      // Bytes that do not decode with their Content-Encoding: body-parser passes zlib's error
      // (code Z_DATA_ERROR, Z_BUF_ERROR, ERR__ERROR_FORMAT_… for brotli) on as a 400 without a type.
      if (error.status === 400 && typeof error.code === 'string' && /^(Z_|ERR__)/.test(error.code)) {
        return new ServiceError(
          'invalid_body',
          'The body could not be decoded with its Content-Encoding; send it uncompressed or encoded as declared.',
        );
      }
      return undefined;
  }
}

/**
 * Express's router refuses a path segment that is not valid percent-encoding (`/content/%`) with a
 * URIError; such a path names no resource.
 */
function fromRouter(error: unknown): ServiceError | undefined {
  if (!(error instanceof URIError)) return undefined;
  return new ServiceError('not_found', 'No resource at this address: the path is not valid percent-encoding.');
}

let unavailableNotedAt = 0;

/**
 * Tells the operator the database cannot be reached, at most every 10 s: while it is down every
 * request meets it, and a line per answer would bury the rest of the log.
 */
function noteUnavailable(log: Logger, error: ServiceUnavailableError): void {
  const now = Date.now();
  if (now - unavailableNotedAt < 10_000) return;
  unavailableNotedAt = now;
  log.warn({ err: error.cause }, 'The database cannot be reached: answering 503 service_unavailable');
}

/** The one error translator of the HTTP app (REST and /mcp's gate); a 500 never shows internals. */
export function errorHandler(docsUrl: string, log: Logger): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error);
    const known = asServiceError(error) ?? fromRouter(error) ?? fromBodyParser(error);
    if (known instanceof ServiceUnavailableError) noteUnavailable(log, known);
    if (known) return sendError(res, known, docsUrl);
    log.error({ err: error }, 'Unexpected error');
    sendError(res, new ServiceError('internal', 'An unexpected error occurred; retry after a short delay.'), docsUrl);
  };
}
