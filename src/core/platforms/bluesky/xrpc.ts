/**
 * One XRPC call to the account's server (`BLUESKY_SERVICE_URL`): a procedure is a POST with a JSON
 * (or raw bytes) body, a query a GET with parameters, both under `/xrpc/<nsid>`. Failures answer
 * `{error, message}`; they are sorted here into the kinds the framework acts on. The bearer token
 * (session or refresh) never reaches a message: errors leave through withoutSecrets.
 */
import { jsonBody, platformRequest, rateLimitReset } from '../http.ts';
import { PlatformError, type PlatformErrorKind } from '../platform-client.ts';
import { withoutSecrets } from '../redaction.ts';

export const BLUESKY = 'Bluesky';

export type XrpcObject = Record<string, unknown>;

export interface XrpcCall {
  nsid: string;
  /** What is being done, for the error message ("creating the post"). */
  subject: string;
  /** A query's parameters (GET); absent for a procedure. */
  params?: Record<string, string>;
  /** A procedure's body: JSON, or raw bytes with their content type (uploadBlob). */
  json?: unknown;
  bytes?: { data: Buffer; contentType: string };
  /** Bearer token: the session's access token, or its refresh token for refreshSession. */
  token?: string;
  /** The kind a refusal of the request itself (400) is: the post's content, or a media file. */
  refusal?: Extract<PlatformErrorKind, 'content_rejected' | 'media_invalid'>;
  /** Answers the create call (unknown outcome when the answer is unreadable). */
  create?: boolean;
}

export async function xrpc(
  serviceUrl: string,
  call: XrpcCall,
  timeoutMs: number,
  now: () => Date,
): Promise<XrpcObject> {
  const query = call.params ? `?${new URLSearchParams(call.params).toString()}` : '';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  let body: NonNullable<RequestInit['body']> | undefined;
  if (call.bytes) {
    headers['content-type'] = call.bytes.contentType;
    body = new Uint8Array(call.bytes.data);
  } else if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  }
  const isProcedure = body !== undefined || call.params === undefined;
  const response = await platformRequest(
    BLUESKY,
    `${serviceUrl}/xrpc/${call.nsid}${query}`,
    { method: isProcedure ? 'POST' : 'GET', headers, ...(body !== undefined && { body }) },
    timeoutMs,
  );
  const answer = await jsonBody(response);
  if (!response.ok) throw withoutSecrets(xrpcError(response, answer, call, now()), ...(call.token ? [call.token] : []));
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    throw new PlatformError(
      call.create ? 'unknown_outcome' : 'transient',
      `${BLUESKY} answered ${response.status} to ${call.subject} with something that is not a JSON object.`,
      { status: response.status },
    );
  }
  return answer as XrpcObject;
}

/** The XRPC error name (`ExpiredToken`, `RecordNotFound`, …) of a failed answer, or null. */
export function xrpcErrorName(error: unknown): string | null {
  return error instanceof XrpcError ? error.errorName : null;
}

/** A PlatformError that keeps the XRPC error name, so a caller can tell `RecordNotFound` from others. */
export class XrpcError extends PlatformError {
  constructor(
    kind: PlatformErrorKind,
    message: string,
    readonly errorName: string | null,
    details: PlatformError['details'],
  ) {
    super(kind, message, details);
    this.name = 'XrpcError';
  }
}

/** Token errors: an expired session answers 400 `ExpiredToken`, not 401. */
const TOKEN_ERRORS = new Set(['ExpiredToken', 'InvalidToken', 'AuthenticationRequired', 'AuthMissing']);

function xrpcError(response: Response, body: unknown, call: XrpcCall, now: Date): XrpcError {
  const { status } = response;
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const name = typeof fields.error === 'string' ? fields.error.slice(0, 100) : null;
  const said = typeof fields.message === 'string' ? fields.message.slice(0, 300) : null;
  const quoted = `${name ?? 'an error'}${said ? `: ${said}` : ''}`;
  const message = `${BLUESKY} answered ${status} ${quoted} while ${call.subject}.`;
  let kind: PlatformErrorKind;
  const retryAt =
    status === 429 ? (rateLimitReset(response.headers, now) ?? ratelimitResetHeader(response.headers)) : undefined;
  if (status === 401 || (name !== null && TOKEN_ERRORS.has(name))) kind = 'reauth_required';
  else if (status === 429) kind = 'rate_limited';
  else if (status >= 500) kind = 'transient';
  else kind = call.refusal ?? 'content_rejected';
  return new XrpcError(kind, message, name, { status, ...(retryAt && { retryAt }) });
}

/** Bluesky's own limit headers: `RateLimit-Reset` in epoch seconds. */
function ratelimitResetHeader(headers: Headers): Date | undefined {
  const reset = headers.get('ratelimit-reset');
  return reset && /^\d+$/.test(reset) ? new Date(Number(reset) * 1000) : undefined;
}
