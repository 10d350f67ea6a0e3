import { and, asc, count, eq, gt } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import { writeTransaction } from '../../../db/client.ts';
import { OAUTH_CLIENT_AUTH_METHODS, oauthClients, type OAuthClientAuthMethod } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { RateLimitError, ServiceError } from '../errors.ts';
import { randomBase62 } from '../ids.ts';

/** Registrations one IP address may make in an hour: a client registers once per installation, not per use. */
export const REGISTRATIONS_PER_HOUR = 20;
const HOUR_MS = 60 * 60 * 1000;

const MAX_REDIRECT_URIS = 10;
export const MAX_URI_LENGTH = 2000;
const MAX_CLIENT_NAME_LENGTH = 200;

const CLIENT_ID_PREFIX = 'npc_';
const CLIENT_SECRET_PREFIX = 'np_ocs_';

/** Loopback hosts, as URL.hostname spells them: the only hosts a plain-http redirect may go to (RFC 8252). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether `requested` is one of the client's redirect URIs. Exact, except that a plain-http loopback URI
 * matches on any port (RFC 8252 section 7.3, OAuth 2.1 section 8.4.2): a native client such as Claude
 * Code listens on a port it is given at run time, and its metadata document lists `http://127.0.0.1/callback`.
 */
export function isClientRedirectUri(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  url.port = '';
  const withoutPort = url.toString();
  return registered.some((uri) => {
    const candidate = new URL(uri);
    if (candidate.protocol !== 'http:') return false;
    candidate.port = '';
    return candidate.toString() === withoutPort;
  });
}

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: OAuthClientAuthMethod;
  grant_types: string[];
  response_types: string[];
  /** Only for confidential clients, and only in this answer: the service keeps a hash. */
  client_secret?: string;
  client_secret_expires_at?: 0;
}

export const hashClientSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

const invalidMetadata = (description: string) => new ServiceError('invalid_client_metadata', description);

/** https anywhere, http only to a loopback host; no fragment (RFC 6749 section 3.1.2) and no credentials. */
function checkRedirectUri(value: unknown): string {
  const refuse = (why: string) => new ServiceError('invalid_redirect_uri', why);
  if (typeof value !== 'string' || value.length === 0) throw refuse('Each redirect URI must be a non-empty string.');
  if (value.length > MAX_URI_LENGTH) throw refuse(`A redirect URI is at most ${MAX_URI_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse(`${value} is not an absolute URL.`);
  }
  if (url.hash || value.includes('#')) throw refuse(`${value} has a fragment; redirect URIs may not.`);
  if (url.username || url.password) throw refuse(`${value} carries credentials; redirect URIs may not.`);
  if (url.protocol === 'https:') return value;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return value;
  throw refuse(`${value} must use https, or http on a loopback host (127.0.0.1, [::1] or localhost).`);
}

/** Request fields that only may restate what the service supports; anything else there is refused. */
function checkSubset(body: Record<string, unknown>, field: string, supported: readonly string[]): void {
  const value = body[field];
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || !supported.includes(item))) {
    throw invalidMetadata(`${field} may only list ${supported.join(' and ')}.`);
  }
}

export interface ClientMetadata {
  clientName: string | undefined;
  redirectUris: string[];
  method: OAuthClientAuthMethod;
}

/**
 * Reads the metadata the service uses; any other field is ignored, as RFC 7591 section 2 asks. The
 * auth method defaults to client_secret_basic, RFC 7591's default: a public client (Claude, ChatGPT,
 * an editor) says `none`.
 */
export function readClientMetadata(body: unknown): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidMetadata('The body must be a JSON object of client metadata.');
  }
  const fields = body as Record<string, unknown>;
  const { client_name: clientName, redirect_uris: redirectUris, token_endpoint_auth_method: method } = fields;
  if (clientName !== undefined && (typeof clientName !== 'string' || clientName.length > MAX_CLIENT_NAME_LENGTH)) {
    throw invalidMetadata(`client_name must be a string of at most ${MAX_CLIENT_NAME_LENGTH} characters.`);
  }
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) {
    throw new ServiceError('invalid_redirect_uri', 'redirect_uris must list at least one URI.');
  }
  if (redirectUris.length > MAX_REDIRECT_URIS) {
    throw new ServiceError('invalid_redirect_uri', `redirect_uris lists at most ${MAX_REDIRECT_URIS}.`);
  }
  if (method !== undefined && !OAUTH_CLIENT_AUTH_METHODS.includes(method as OAuthClientAuthMethod)) {
    throw invalidMetadata(`token_endpoint_auth_method must be one of ${OAUTH_CLIENT_AUTH_METHODS.join(', ')}.`);
  }
  checkSubset(fields, 'grant_types', ['authorization_code', 'refresh_token']);
  checkSubset(fields, 'response_types', ['code']);
  return {
    clientName: clientName === undefined || clientName.trim() === '' ? undefined : clientName.trim(),
    redirectUris: [...new Set(redirectUris.map(checkRedirectUri))],
    method: (method as OAuthClientAuthMethod | undefined) ?? 'client_secret_basic',
  };
}

/**
 * Refuses a registration past the address's hourly allowance. Counted from the clients table itself,
 * over the last hour: exact across processes, and only a stored client (the thing worth bounding) counts.
 */
export async function checkRegistrationAllowance(runtime: Runtime, address: string, now: Date): Promise<void> {
  const since = new Date(now.getTime() - HOUR_MS);
  const inWindow = and(eq(oauthClients.registeredFrom, address), gt(oauthClients.createdAt, since));
  const made = (await runtime.db.select({ n: count() }).from(oauthClients).where(inWindow).get())!.n;
  if (made < REGISTRATIONS_PER_HOUR) return;
  const oldest = (await runtime.db
    .select({ createdAt: oauthClients.createdAt })
    .from(oauthClients)
    .where(inWindow)
    .orderBy(asc(oauthClients.createdAt))
    .limit(1)
    .get())!;
  const freedAt = oldest.createdAt.getTime() + HOUR_MS;
  const retryAfter = Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000));
  throw new RateLimitError(
    { limit: REGISTRATIONS_PER_HOUR, remaining: 0, reset: Math.ceil(freedAt / 1000) },
    retryAfter,
    'client registration',
  );
}

/** RFC 7591 dynamic client registration: validates the metadata, stores the client, answers its credentials. */
export async function registerClient(runtime: Runtime, body: unknown, address: string): Promise<RegisteredClient> {
  const metadata = readClientMetadata(body);
  const now = runtime.clock.now();
  const clientId = CLIENT_ID_PREFIX + randomBase62(24);
  const secret = metadata.method === 'none' ? undefined : CLIENT_SECRET_PREFIX + randomBase62(40);
  await writeTransaction(runtime.db, async () => {
    await checkRegistrationAllowance(runtime, address, now);
    await runtime.db
      .insert(oauthClients)
      .values({
        id: clientId,
        clientName: metadata.clientName ?? null,
        redirectUris: metadata.redirectUris,
        tokenEndpointAuthMethod: metadata.method,
        secretHash: secret === undefined ? null : hashClientSecret(secret),
        registeredFrom: address,
        createdAt: now,
      })
      .run();
  });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(metadata.clientName === undefined ? {} : { client_name: metadata.clientName }),
    redirect_uris: metadata.redirectUris,
    token_endpoint_auth_method: metadata.method,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 as const }),
  };
}
