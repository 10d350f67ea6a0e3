import { ServiceError, type ErrorCode } from '../errors.ts';

/**
 * The codes of the one error model (errors.ts) that OAuth's own endpoints answer in their RFC's body,
 * `{error, error_description}`, instead of the API's envelope: the code is the RFC's `error`, the
 * message its `error_description`, and the door's status table gives the status (401 for
 * invalid_client, 400 for the others).
 */
export const TOKEN_ERROR_CODES = [
  // RFC 6749 section 5.2, and RFC 8707's invalid_target.
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
] as const satisfies readonly ErrorCode[];
export type TokenErrorCode = (typeof TOKEN_ERROR_CODES)[number];

/** RFC 7591 section 3.2.2: what a refused client registration answers. */
export const REGISTRATION_ERROR_CODES = [
  'invalid_redirect_uri',
  'invalid_client_metadata',
] as const satisfies readonly ErrorCode[];
export type RegistrationErrorCode = (typeof REGISTRATION_ERROR_CODES)[number];

type Coded<Code extends ErrorCode> = ServiceError & { readonly code: Code };

const isOneOf =
  <Code extends ErrorCode>(codes: readonly Code[]) =>
  (error: unknown): error is Coded<Code> =>
    error instanceof ServiceError && (codes as readonly ErrorCode[]).includes(error.code);

/** A refusal of the token or revocation endpoint, in RFC 6749's terms. */
export const isTokenError = isOneOf(TOKEN_ERROR_CODES);
/** A refusal of client registration, in RFC 7591's terms. */
export const isRegistrationError = isOneOf(REGISTRATION_ERROR_CODES);

/** The RFC body of such a refusal. */
export const oauthErrorBody = (error: ServiceError): { error: string; error_description: string } => ({
  error: error.code,
  error_description: error.message,
});
