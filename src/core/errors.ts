import { z } from 'zod';
import { DatabaseUnavailableError } from '../../db/engine/store.ts';

/**
 * Every machine-readable code the service answers with, what it means and what the caller should do:
 * the one list of codes (the error reference page and the OpenAPI document are built from it). The
 * HTTP status of each lives in the REST door's translator; the core only names what went wrong.
 */
export const ERROR_CATALOGUE = {
  invalid_body: {
    meaning: 'The body is not valid JSON, or a field failed validation; a validation failure carries details.',
    action:
      'Fix the fields named in details.fieldErrors (and details.formErrors) and send again; the same body fails the same way.',
  },
  no_updates: {
    meaning: 'A PATCH body carried no recognised updatable field.',
    action: 'Send at least one of the fields the endpoint can change; unknown fields are ignored.',
  },
  missing_key: {
    meaning: 'No Authorization header, or no key with the np_live_ prefix.',
    action: 'Send Authorization: Bearer np_live_… with a key made under Settings, API keys.',
  },
  invalid_key: {
    meaning: 'The key is unknown or revoked (the two look alike).',
    action: 'Check the key was copied whole; if it was revoked, create a new one.',
  },
  expired_key: {
    meaning: 'The key is past its expiry date.',
    action: 'Create a new key and replace the expired one.',
  },
  payment_required: {
    meaning: 'The workspace subscription is inactive (past due or canceled).',
    action: 'Settle or renew the subscription; GET /api/v1/me still answers and shows the plan status.',
  },
  plan_forbidden: {
    meaning: 'The plan has no API access.',
    action: 'Move to a plan with api_access; GET /api/v1/me shows the plan and its features.',
  },
  quota_exceeded: {
    meaning:
      'A plan limit is reached: the monthly posts or AI credits, the active social accounts (platforms_limit), the webhooks a workspace may have, or the media storage quota.',
    action:
      'Wait for the next UTC month, move to a larger plan, or free the resource (an account, a webhook, media files); GET /api/v1/me shows usage.',
  },
  unknown_tool: {
    meaning: 'The X-MCP-Tools header of an /mcp request names a tool the service does not have.',
    action: 'Name only tools of the service (tools/list without the header shows them), separated by commas.',
  },
  insufficient_scope: {
    meaning: 'The OAuth access token lacks the scope this route or tool needs (read, write or publish).',
    action: 'Authorize the client again asking for the scope the message names; API keys carry every scope.',
  },
  forbidden: {
    meaning:
      "The person's role in the workspace does not allow this action (a viewer writing, an editor approving, rejecting, scheduling or publishing, a non-admin changing settings), or they may not approve an item they created.",
    action: 'Ask someone with the role the message names to do it, or an admin to change your role.',
  },
  invalid_request_origin: {
    meaning: 'A dashboard form was sent without its CSRF token, or from a page of another origin.',
    action: 'Reload the page and send the form again from the dashboard itself.',
  },
  origin_not_allowed: {
    meaning: 'A browser Origin that is not allowed called /mcp.',
    action: 'Call /mcp from a server, or have the operator add the origin to MCP_ALLOWED_ORIGINS.',
  },
  host_not_allowed: {
    meaning:
      'The Host header names a host this service does not answer to (on a loopback PUBLIC_BASE_URL, any name but localhost, 127.0.0.1 and [::1]): a name rebound to its address.',
    action: 'Call the service by the address in PUBLIC_BASE_URL, or have the operator add the name to ALLOWED_HOSTS.',
  },
  not_found: {
    meaning: 'The resource does not exist, belongs to another workspace, or the route is unknown.',
    action: 'Check the id and the path (the API lives under /api/v1); ids of another workspace are never visible.',
  },
  method_not_allowed: {
    meaning: 'The route exists but not with this HTTP method.',
    action: 'Use one of the methods the Allow header lists.',
  },
  invalid_state: {
    meaning:
      'The resource is in a state that does not allow this action (an archived or publishing item, a campaign that is not draft or paused, a media file an unfinished item still uses).',
    action: 'Read the resource, and change its status first if the action should still happen.',
  },
  idempotency_conflict: {
    meaning: 'A request with the same Idempotency-Key is still in flight.',
    action: 'Wait for the first request to finish, then repeat it to get its stored answer.',
  },
  payload_too_large: {
    meaning: 'The body is larger than the limit (JSON bodies, form callbacks and media uploads each have one).',
    action: 'Send a smaller body or file.',
  },
  unsupported_media_type: {
    meaning: 'The body or upload is of a type the endpoint does not take.',
    action: 'Send JSON with Content-Type: application/json (uploads: multipart/form-data with an image or video file).',
  },
  range_not_satisfiable: {
    meaning: 'A Range header asked for bytes outside a media file; Content-Range gives its size.',
    action:
      'Ask for a range inside the size Content-Range gives (bytes */size), or fetch the whole file without Range.',
  },
  no_target_platforms: {
    meaning: 'Publishing needs at least one target platform.',
    action: 'Set target_platforms with PATCH /api/v1/content/{id}, then publish again.',
  },
  unprocessable_entity: {
    meaning: 'A brand profile length, count or range limit was exceeded; details names the fields.',
    action: 'Shorten or trim the fields named in details and send again.',
  },
  platform_not_configured: {
    meaning:
      "The platform cannot be connected live: the service's OAuth app for it (client id and secret) is not configured.",
    action:
      'Ask the operator to set the variables the message names (X_CLIENT_ID and X_CLIENT_SECRET, or LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET) and restart the service.',
  },
  credentials_refused: {
    meaning:
      'A platform that connects with credentials refused the sign-in: the identifier or app password is wrong, or the app password was revoked. Nothing was stored.',
    action:
      "Check the identifier (the account's handle or e-mail) and create a new app password in the platform's settings, then connect again.",
  },
  platform_unavailable: {
    meaning:
      'The platform could not be reached, answered with a server error, or asked to slow down while connecting an account.',
    action: 'Nothing was stored. Retry after a short delay; the message says what the platform answered.',
  },
  invalid_return_url: {
    meaning:
      "An account connection's return_url is not on the service's own origin nor on one the operator allowed (CONNECT_RETURN_ORIGINS).",
    action:
      "Give a return_url on the service's origin, or ask the operator to add your origin to CONNECT_RETURN_ORIGINS.",
  },
  sign_in_refused: {
    meaning:
      'A dashboard sign-in (or an OAuth consent given by signing in) was refused: the email is unknown, the password is wrong, or the person belongs to no workspace. The three look alike.',
    action: 'Check the email and password; an admin can print a password link with the admin CLI (reset-password).',
  },
  invalid_link: {
    meaning: 'A setup, password or invitation link was already used, has expired, or was replaced by a newer one.',
    action: 'Ask for a new link: an admin invites again, or prints a password link with the admin CLI.',
  },
  weak_password: {
    meaning:
      'The password chosen on a setup, password or invitation link is too short, too common or too close to the email.',
    action: 'Choose a longer password that is not built from the email; the message says what was wrong.',
  },
  wrong_password: {
    meaning: "An invitation was accepted with a password that is not the invited person's account password.",
    action: 'Give the password you sign in with, or sign in first and accept with one button.',
  },
  email_taken: {
    meaning: 'A setup link was given an email that already has an account or an invitation waiting.',
    action: 'Give another email: the setup link only creates a new person.',
  },
  invalid_connect_state: {
    meaning:
      "An account connection's callback came with a state that is missing, unknown, expired or already used, without a code, or was confirmed from another browser than the one that brought the code; or its workspace is gone.",
    action:
      'Start the connection again from the dashboard or POST /api/v1/social-accounts/connect, and finish it in one browser.',
  },
  invalid_request: {
    meaning:
      'An OAuth token or revocation request is missing a parameter, or one cannot be read (RFC 6749 invalid_request).',
    action: 'Send the form parameters the OAuth endpoint needs (grant_type, code, code_verifier, redirect_uri, …).',
  },
  invalid_client: {
    meaning:
      'The OAuth client is unknown, or its authentication at the token endpoint failed (RFC 6749 invalid_client).',
    action: 'Register the client again (or fix its client_secret and its authentication method), then retry.',
  },
  invalid_grant: {
    meaning:
      'The authorization code or refresh token is unknown, expired, already used, revoked or issued to another client, or the redirect_uri or code_verifier does not match (RFC 6749 invalid_grant).',
    action: 'Start the authorization again; a refresh token that was already used has revoked its grant.',
  },
  unsupported_grant_type: {
    meaning: 'The token request names a grant_type the service does not serve (RFC 6749 unsupported_grant_type).',
    action: 'Use grant_type authorization_code or refresh_token.',
  },
  invalid_scope: {
    meaning:
      'The scope asked for names a scope the service does not have, or more than the grant holds (RFC 6749 invalid_scope).',
    action: 'Ask only for read, write and publish, and on a refresh no more than the grant was given.',
  },
  invalid_target: {
    meaning:
      "The resource of an OAuth request is not one this service serves, or not the grant's own (RFC 8707 invalid_target).",
    action:
      'Name PUBLIC_BASE_URL/mcp (or /mcp/readonly), as the protected-resource metadata gives it, or leave resource out.',
  },
  invalid_redirect_uri: {
    meaning: 'A client registration lists a redirect URI the service does not accept (RFC 7591 invalid_redirect_uri).',
    action: 'Register https redirect URIs, or http ones on a loopback address, without a fragment.',
  },
  invalid_client_metadata: {
    meaning: 'A client registration carries metadata the service cannot use (RFC 7591 invalid_client_metadata).',
    action: 'Fix the field the description names and register again.',
  },
  unusable_client_metadata: {
    meaning:
      'An OAuth client named by its metadata document URL (a client_id starting https://) cannot be used: the URL, the document or its fetch is at fault.',
    action: "Fix the client's metadata document as the page says, or register the client instead.",
  },
  idempotency_key_reused: {
    meaning: 'The Idempotency-Key was used before with another body.',
    action: 'Use a new key for a new request; reuse a key only to repeat the very same request.',
  },
  rate_limit_exceeded: {
    meaning: 'A rate-limit bucket of the workspace is empty; the body has its own shape, with retry_after.',
    action: 'Wait retry_after seconds (also in Retry-After), then retry with backoff and jitter, capped at 60 seconds.',
  },
  service_unavailable: {
    meaning:
      'The service cannot reach its database for now (it is restarting, or the network to it is down). Nothing of the request was kept.',
    action:
      'Retry after the seconds the Retry-After header gives; send writes with an Idempotency-Key so a retry is safe.',
  },
  internal: {
    meaning: 'An unexpected error; no internals are shown.',
    action: 'Retry after a short delay with exponential backoff; the only error worth retrying blind.',
  },
} as const satisfies Record<string, { meaning: string; action: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** `details`: zod's flattened error, carried by schema-validation failures (never by malformed JSON). */
export const ErrorDetails = z
  .strictObject({
    formErrors: z.array(z.string()).describe('Errors not tied to one field.'),
    fieldErrors: z.record(z.string(), z.array(z.string())).describe('Request field name to its error messages.'),
  })
  .meta({ id: 'ErrorDetails' });
export type ErrorDetails = z.output<typeof ErrorDetails>;

/** The failure body: one top-level key `error`, and nothing else (no `object`, no request id). */
export const ErrorBody = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).describe('Machine-readable; branch on it.'),
      message: z.string().min(1).describe('Human-readable; do not parse.'),
      docs_url: z.url().describe('The error reference page, listing every code with its meaning and what to do.'),
      details: ErrorDetails.optional().describe(
        'Only on schema-validation failures (invalid_body, unprocessable_entity).',
      ),
    }),
  })
  .meta({ id: 'Error' });

/** The 429 body the contract gives, which differs from the error envelope. */
export const RateLimitBody = z
  .strictObject({
    object: z.literal('error'),
    type: z.literal('rate_limit_exceeded'),
    message: z.string().min(1),
    retry_after: z.int().min(1).describe('Seconds until the bucket refills; also sent as Retry-After.'),
  })
  .meta({ id: 'RateLimitExceeded' });

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

/**
 * A ServiceError as the API's error envelope, `{ error: { code, message, docs_url, details? } }`: what
 * REST answers, what a tool's error text carries, and what an idempotency key stores, so an error
 * replays alike through either door.
 */
export function errorEnvelope(error: ServiceError, docsUrl: string): { error: Record<string, unknown> } {
  return {
    error: {
      code: error.code,
      message: error.message,
      docs_url: docsUrl,
      ...(error.details ? { details: error.details } : {}),
    },
  };
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

/** How long a caller is told to wait when the database cannot be reached: about what a server restart takes. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The database cannot be reached for now: a refusal with a time to retry after, as a 429 has. */
export class ServiceUnavailableError extends ServiceError {
  readonly retryAfter = DATABASE_RETRY_AFTER_SECONDS;
  /** `cause`: the store's error, for the operator's log (never for the caller). */
  constructor(cause?: unknown) {
    super(
      'service_unavailable',
      `The service cannot reach its database right now; nothing was changed. Retry after ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
    );
    this.name = 'ServiceUnavailableError';
    this.cause = cause;
  }
}

/** Whether `error` is the store's: the database could not be reached (so not a fault of the work that met it). */
export const isDatabaseUnavailable = (error: unknown): boolean => error instanceof DatabaseUnavailableError;

/**
 * An error as the API names it, for the doors' translators: a ServiceError as it is, the store's
 * DatabaseUnavailableError as service_unavailable; undefined for anything else (an unexpected error,
 * answered as internal).
 */
export function asServiceError(error: unknown): ServiceError | undefined {
  if (error instanceof ServiceError) return error;
  if (error instanceof DatabaseUnavailableError) return new ServiceUnavailableError(error.cause);
  return undefined;
}

export const notFound = (what: string): ServiceError =>
  new ServiceError('not_found', `No ${what} with that id exists in this workspace.`);

/** A zod failure as the API's invalid_body: zod's flattened error is exactly `details`. */
export function validationError(
  error: z.ZodError,
  code: 'invalid_body' | 'unprocessable_entity' = 'invalid_body',
): ServiceError {
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
