import { z } from 'zod';

/**
 * Every machine-readable code the service answers with. The HTTP status of each lives in the REST
 * door's translator; the core only names what went wrong.
 */
export const ERROR_CODES = [
  'invalid_body',
  'no_updates',
  'missing_key',
  'invalid_key',
  'expired_key',
  'payment_required',
  'plan_forbidden',
  'quota_exceeded',
  'origin_not_allowed',
  'not_found',
  'method_not_allowed',
  'invalid_state',
  'idempotency_conflict',
  'payload_too_large',
  'unsupported_media_type',
  'range_not_satisfiable',
  'no_target_platforms',
  'unprocessable_entity',
  'idempotency_key_reused',
  'rate_limit_exceeded',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetails {
  formErrors: string[];
  fieldErrors: Record<string, string[]>;
}

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the window rolls over. */
  reset: number;
}

export class RateLimitError extends ServiceError {
  constructor(
    readonly state: RateLimitState,
    readonly retryAfter: number,
    bucket: string,
  ) {
    super('rate_limit_exceeded', `Rate limit exceeded for ${bucket} requests; retry after ${retryAfter} seconds.`);
    this.name = 'RateLimitError';
  }
}

export const notFound = (what: string): ServiceError =>
  new ServiceError('not_found', `No ${what} with that id exists in this workspace.`);

/** A zod failure as SPEC.md's invalid_body: zod's flattened error is exactly `details`. */
export function validationError(error: z.ZodError, code: 'invalid_body' | 'unprocessable_entity' = 'invalid_body'): ServiceError {
  const details = z.flattenError(error) as ErrorDetails;
  const summary = error.issues
    .slice(0, 3)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
  return new ServiceError(code, `The request is invalid: ${summary.replace(/\.$/, '')}.`, details);
}

/** A single-field failure in the same shape as a schema failure. */
export function fieldError(field: string, message: string): ServiceError {
  return new ServiceError('invalid_body', `The request is invalid: ${field}: ${message.replace(/\.$/, '')}.`, {
    formErrors: [],
    fieldErrors: { [field]: [message] },
  });
}
