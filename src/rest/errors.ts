import type { ErrorRequestHandler, Response } from 'express';
import { RateLimitError, ServiceError, type ErrorCode, type RateLimitState } from '../core/errors.ts';

/** The one table from error code to HTTP status, with the text the error reference page shows. */
export const ERROR_REFERENCE: Record<ErrorCode, { status: number; meaning: string }> = {
  invalid_body: { status: 400, meaning: 'The body is not valid JSON, or a field failed validation (see details).' },
  no_updates: { status: 400, meaning: 'A PATCH body carried no recognised updatable field.' },
  missing_key: { status: 401, meaning: 'No Authorization header, or no key with the np_live_ prefix.' },
  invalid_key: { status: 401, meaning: 'The key is unknown or revoked (the two look alike).' },
  expired_key: { status: 401, meaning: 'The key is past its expiry date.' },
  payment_required: { status: 402, meaning: 'The workspace subscription is inactive; GET /api/v1/me shows the plan.' },
  plan_forbidden: { status: 403, meaning: 'The plan has no API access; GET /api/v1/me shows the plan.' },
  quota_exceeded: { status: 403, meaning: 'A plan limit is reached: the monthly posts or AI credits, the active social accounts (platforms_limit), or the webhooks a workspace may have.' },
  origin_not_allowed: { status: 403, meaning: 'A browser Origin that is not allowed called /mcp.' },
  not_found: { status: 404, meaning: 'The resource does not exist, belongs to another workspace, or the route is unknown.' },
  method_not_allowed: { status: 405, meaning: 'The route exists but not with this HTTP method.' },
  invalid_state: { status: 409, meaning: 'The resource is in a state that does not allow this action.' },
  idempotency_conflict: { status: 409, meaning: 'A request with the same Idempotency-Key is still in flight.' },
  payload_too_large: { status: 413, meaning: 'The body is larger than the limit.' },
  unsupported_media_type: { status: 415, meaning: 'The body or upload is of a type the endpoint does not take.' },
  range_not_satisfiable: { status: 416, meaning: 'A Range header asked for bytes outside a media file; Content-Range gives its size.' },
  no_target_platforms: { status: 422, meaning: 'Publishing needs at least one target platform.' },
  unprocessable_entity: { status: 422, meaning: 'A brand profile length, count or range limit was exceeded (see details).' },
  idempotency_key_reused: { status: 422, meaning: 'The Idempotency-Key was used before with another body.' },
  rate_limit_exceeded: { status: 429, meaning: 'A rate-limit bucket is empty; retry after retry_after seconds.' },
  internal: { status: 500, meaning: 'An unexpected error; safe to retry after a delay.' },
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

/** An error the way SPEC.md shapes it: the envelope, or the distinct 429 body. */
export function errorResponse(error: ServiceError, docsUrl: string): ErrorResponse {
  const { status } = ERROR_REFERENCE[error.code];
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
  const envelope: Record<string, unknown> = { code: error.code, message: error.message, docs_url: docsUrl };
  if (error.details) envelope.details = error.details;
  return { status, headers: {}, body: { error: envelope } };
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
        return new ServiceError('invalid_body', 'The body could not be decoded with its Content-Encoding; send it uncompressed or encoded as declared.');
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

/** The REST door's only error translator; a 500 never shows internals. */
export function errorHandler(docsUrl: string): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error);
    const known = error instanceof ServiceError ? error : (fromRouter(error) ?? fromBodyParser(error));
    if (known) return sendError(res, known, docsUrl);
    console.error('Unexpected error:', error);
    sendError(res, new ServiceError('internal', 'An unexpected error occurred; retry after a short delay.'), docsUrl);
  };
}
