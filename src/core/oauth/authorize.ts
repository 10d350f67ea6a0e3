import { and, asc, eq, gt, lte } from 'drizzle-orm';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeTransaction } from '../../../db/client.ts';
import { oauthConsentFailures } from '../../../db/schema/index.ts';
import { authenticateApiKey } from '../accounts/api-keys.ts';
import type { Runtime } from '../context.ts';
import { RateLimitError, ServiceError } from '../errors.ts';
import { derivedKey } from '../secrets.ts';
import { isMetadataDocumentClientId, resolveMetadataDocumentClient } from './client-metadata.ts';
import { findClient, issueAuthorizationCode, parseScope, type OAuthClient } from './grants.ts';
import { acceptedResources, mcpResourceUrl, protectedResourceOf, resourceScopes, type OAuthScope } from './metadata.ts';
import { isClientRedirectUri } from './registration.ts';
import type { Role } from '../../../db/schema/index.ts';
import { checkSignIn, SIGN_IN_REFUSED } from '../people/sessions.ts';
import { membershipOf } from '../people/memberships.ts';
import { landingOf } from '../people/workspace-choice.ts';

/** The fields of an authorization request, as the query (GET) or the consent form's hidden fields (POST) carry them. */
export const AUTHORIZATION_FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
  'resource',
] as const;
export type AuthorizationParams = Partial<Record<(typeof AUTHORIZATION_FIELDS)[number], string>>;

/** A request checked in full: who asks, where the answer goes, and what is asked for. */
export interface AuthorizationRequest {
  client: OAuthClient;
  params: AuthorizationParams;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  scopes: OAuthScope[];
  resource: string;
}

/**
 * Why a request is refused. `page`: the client or redirect_uri cannot be trusted, so the refusal is
 * shown to the person and never sent anywhere (RFC 6749 section 4.1.2.1). `redirect`: sent back to
 * the client's redirect_uri with `error`, `state` and `iss`.
 */
export type AuthorizationRefusal =
  { kind: 'page'; message: string } | { kind: 'redirect'; location: string; error: string; description: string };

/** The address the client gets back: redirect_uri with the answer's parameters and the issuer (RFC 9207). */
export function redirectLocation(runtime: Runtime, redirectUri: string, answer: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) url.searchParams.set(name, value);
  url.searchParams.set('iss', runtime.config.publicBaseUrl);
  return url.toString();
}

/** The client a client_id names: a registered one, or one described by its metadata document. */
async function clientFor(
  runtime: Runtime,
  clientId: string,
  address: string,
): Promise<OAuthClient | AuthorizationRefusal> {
  if (!isMetadataDocumentClientId(clientId)) {
    return (
      (await findClient(runtime, clientId)) ?? {
        kind: 'page',
        message: 'The client is not registered with this service.',
      }
    );
  }
  try {
    return await resolveMetadataDocumentClient(runtime, clientId, address);
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'unusable_client_metadata') {
      return { kind: 'page', message: error.message };
    }
    throw error;
  }
}

/**
 * Checks an authorization request in the order that decides where a refusal may go. `address` is the
 * person's: a client first met by its metadata document counts against that address's allowance.
 */
export async function checkAuthorizationRequest(
  runtime: Runtime,
  params: AuthorizationParams,
  address: string,
): Promise<AuthorizationRequest | AuthorizationRefusal> {
  const clientId = params.client_id;
  if (!clientId) return { kind: 'page', message: 'The request names no client (client_id is missing).' };
  const client = await clientFor(runtime, clientId, address);
  if ('kind' in client) return client;
  const redirectUri = params.redirect_uri;
  if (!redirectUri) return { kind: 'page', message: 'The request has no redirect_uri.' };
  if (!isClientRedirectUri(client.redirectUris, redirectUri)) {
    return { kind: 'page', message: 'The redirect_uri is not one this client registered.' };
  }
  const state = params.state ?? '';
  const refuse = (error: string, description: string): AuthorizationRefusal => ({
    kind: 'redirect',
    error,
    description,
    location: redirectLocation(runtime, redirectUri, {
      error,
      error_description: description,
      ...(state ? { state } : {}),
    }),
  });
  if (params.response_type !== 'code') return refuse('unsupported_response_type', 'response_type must be code.');
  if (!state) return refuse('invalid_request', 'state is required.');
  if (!params.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge)) {
    return refuse('invalid_request', 'code_challenge is required: base64url SHA-256 of the verifier (PKCE).');
  }
  if (params.code_challenge_method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256.');
  const asked = parseScope(params.scope);
  if (!asked) return refuse('invalid_scope', 'scope may only list read, write and publish.');
  // A request that names no resource is for this instance's /mcp: the grant is bound to it all the
  // same, so its tokens fail on another instance sharing the database (RFC 8707 section 2).
  const resource = params.resource || mcpResourceUrl(runtime.config);
  const target = protectedResourceOf(runtime.config, resource);
  if (!target) {
    return refuse('invalid_target', `resource must be ${acceptedResources(runtime.config).join(', ')}.`);
  }
  // A grant for the read-only door reads, whatever it asked for (RFC 6749 section 3.3 lets the server
  // grant less; the token answer's scope says so). The consent page then lists only reading.
  const allowed = resourceScopes(target);
  const within = asked.filter((scope) => allowed.includes(scope));
  const scopes = within.length > 0 ? within : [...allowed];
  return { client, params, redirectUri, state, codeChallenge: params.code_challenge, scopes, resource };
}

/** Binds the consent form to the request it shows: an HMAC of its fields with a key only the server has. */
export function consentFormToken(runtime: Runtime, params: AuthorizationParams): string {
  const fields = AUTHORIZATION_FIELDS.map((name) => params[name] ?? '');
  return createHmac('sha256', derivedKey(runtime.config, 'oauth-consent'))
    .update(JSON.stringify(fields))
    .digest('base64url');
}

export function consentFormTokenMatches(runtime: Runtime, params: AuthorizationParams, sent: string): boolean {
  const expected = Buffer.from(consentFormToken(runtime, params));
  const given = Buffer.from(sent);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Wrong keys one address may type into the consent page in a minute; the next attempt answers 429. */
export const FAILED_KEYS_PER_MINUTE = 10;
const MINUTE_MS = 60_000;

/** Refuses an attempt from an address that typed too many wrong keys in the last minute (a sliding minute). */
async function checkFailedKeyAllowance(runtime: Runtime, address: string): Promise<void> {
  const now = runtime.clock.now();
  const since = new Date(now.getTime() - MINUTE_MS);
  const recent = await runtime.db
    .select({ failedAt: oauthConsentFailures.failedAt })
    .from(oauthConsentFailures)
    .where(and(eq(oauthConsentFailures.address, address), gt(oauthConsentFailures.failedAt, since)))
    .orderBy(asc(oauthConsentFailures.failedAt))
    .all();
  if (recent.length < FAILED_KEYS_PER_MINUTE) return;
  const freedAt = recent[0].failedAt.getTime() + MINUTE_MS;
  const retryAfter = Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000));
  throw new RateLimitError(
    { limit: FAILED_KEYS_PER_MINUTE, remaining: 0, reset: Math.ceil(freedAt / 1000) },
    retryAfter,
    'consent page key',
  );
}

/** Counts a wrong key, and forgets those past the minute: the table only ever holds the last minute's. */
async function recordFailedKey(runtime: Runtime, address: string): Promise<void> {
  const now = runtime.clock.now();
  await writeTransaction(runtime.db, async () => {
    await runtime.db
      .delete(oauthConsentFailures)
      .where(lte(oauthConsentFailures.failedAt, new Date(now.getTime() - MINUTE_MS)))
      .run();
    await runtime.db.insert(oauthConsentFailures).values({ address, failedAt: now }).run();
  });
}

/**
 * The person's approval: the API key proves they control a workspace, the grant goes to it. Only a
 * workspace API key counts: an access token, refresh token or code would let a narrow grant mint a
 * wider one. Answers the redirect carrying the code, or the reason the key was refused (shown on the
 * page again).
 */
export async function approveAuthorization(
  runtime: Runtime,
  request: AuthorizationRequest,
  apiKey: string,
  address: string,
): Promise<{ location: string } | { keyRefused: string }> {
  await checkFailedKeyAllowance(runtime, address);
  let workspaceId: string;
  try {
    workspaceId = (await authenticateApiKey(runtime, `Bearer ${apiKey.trim()}`, { planChecks: false })).id;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    await recordFailedKey(runtime, address);
    return { keyRefused: 'That API key is not valid: check it on your dashboard and paste the whole key.' };
  }
  const code = await issueAuthorizationCode(runtime, {
    clientId: request.client.id,
    workspaceId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scopes: request.scopes,
    resource: request.resource,
  });
  return { location: redirectLocation(runtime, request.redirectUri, { code, state: request.state }) };
}

/** The scopes a person's role lets a grant carry: a viewer's token only reads, an editor's cannot publish. */
const ROLE_SCOPES: Record<Role, readonly OAuthScope[]> = {
  viewer: ['read'],
  editor: ['read', 'write'],
  approver: ['read', 'write', 'publish'],
  admin: ['read', 'write', 'publish'],
};

/**
 * The person's approval by signing in with their dashboard account, instead of an API key. The grant
 * is bound to the person: its scopes are cut to what their role allows, and its tokens act with their
 * role as it stands at each request (an editor's token can create content but never approve it).
 * Sign-in limits and the one refusal message are the dashboard's own (people/sessions.ts).
 */
export async function approveAuthorizationAsPerson(
  runtime: Runtime,
  request: AuthorizationRequest,
  credentials: { email: string; password: string },
  address: string,
): Promise<{ location: string } | { keyRefused: string }> {
  const outcome = await checkSignIn(runtime, { ...credentials, address });
  if (outcome instanceof ServiceError) return { keyRefused: outcome.message };
  // A person of several workspaces grants in the one they last chose on the dashboard, as sign-in lands.
  const workspaceId = (await landingOf(runtime.db, outcome.userId))?.workspaceId ?? outcome.workspaceId;
  const member = await membershipOf(runtime.db, workspaceId, outcome.userId);
  if (!member) return { keyRefused: SIGN_IN_REFUSED };
  const scopes = request.scopes.filter((scope) => ROLE_SCOPES[member.role].includes(scope));
  const code = await issueAuthorizationCode(runtime, {
    clientId: request.client.id,
    workspaceId,
    userId: outcome.userId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scopes: scopes.length > 0 ? scopes : ['read'],
    resource: request.resource,
  });
  return { location: redirectLocation(runtime, request.redirectUri, { code, state: request.state }) };
}
