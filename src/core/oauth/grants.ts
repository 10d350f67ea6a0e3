import { and, eq, isNull, sql } from 'drizzle-orm';
import { createHash, timingSafeEqual } from 'node:crypto';
import { preparedStatements, writeTransaction } from '../../../db/client.ts';
import { oauthAuthorizationCodes, oauthClients, oauthTokens, plans, workspaces } from '../../../db/schema/index.ts';
import { toWorkspace, type Workspace } from '../accounts/workspace.ts';
import type { Runtime } from '../context.ts';
import { newId, randomBase62 } from '../ids.ts';
import { ServiceError } from '../errors.ts';
import { hashClientSecret } from './registration.ts';
import {
  acceptedResources,
  mcpResourceUrl,
  OAUTH_SCOPES,
  protectedResourceOf,
  resourceScopes,
  type OAuthScope,
} from './metadata.ts';

export const ACCESS_TOKEN_PREFIX = 'np_oat_';
export const REFRESH_TOKEN_PREFIX = 'np_ort_';
/** Long enough for a token request that follows the redirect at once; short, since a code in a URL leaks easily. */
export const CODE_LIFETIME_MS = 60 * 1000;
export const ACCESS_TOKEN_LIFETIME_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/**
 * The scopes a `scope` parameter names, in the service's order; absent or blank means all three
 * (a client that asks for nothing in particular gets what an API key can do). Null when it names
 * a scope the service does not have.
 */
export function parseScope(scope: string | undefined): OAuthScope[] | null {
  const words = (scope ?? '').split(' ').filter((word) => word !== '');
  if (words.length === 0) return [...OAUTH_SCOPES];
  if (words.some((word) => !OAUTH_SCOPES.includes(word as OAuthScope))) return null;
  return OAUTH_SCOPES.filter((known) => words.includes(known));
}

export interface OAuthClient {
  id: string;
  clientName: string | null;
  redirectUris: string[];
  tokenEndpointAuthMethod: 'none' | 'client_secret_basic' | 'client_secret_post';
  secretHash: string | null;
  /** Set for a metadata-document client: until when its fetched document is fresh. */
  metadataExpiresAt: Date | null;
}

export async function findClient(runtime: Runtime, clientId: string): Promise<OAuthClient | undefined> {
  return runtime.db.select().from(oauthClients).where(eq(oauthClients.id, clientId)).get();
}

/** The credentials a token or revoke request carried: from the Basic header or the form. */
export interface ClientCredentials {
  clientId: string | undefined;
  secret: string | undefined;
  via: 'basic' | 'post' | 'none';
}

/**
 * Authenticates the client by the method it registered (RFC 6749 section 2.3): a public client
 * sends its id alone, a confidential one its secret by Basic or in the form, whichever it chose.
 */
export async function authenticateClient(runtime: Runtime, credentials: ClientCredentials): Promise<OAuthClient> {
  const refuse = () => new ServiceError('invalid_client', 'The client is unknown or its authentication failed.');
  if (!credentials.clientId) throw refuse();
  const client = await findClient(runtime, credentials.clientId);
  if (!client) throw refuse();
  const expectedVia = { none: 'none', client_secret_basic: 'basic', client_secret_post: 'post' }[
    client.tokenEndpointAuthMethod
  ];
  if (credentials.via !== expectedVia) throw refuse();
  if (client.secretHash === null) return client;
  const sent = Buffer.from(hashClientSecret(credentials.secret ?? ''), 'hex');
  if (!timingSafeEqual(sent, Buffer.from(client.secretHash, 'hex'))) throw refuse();
  return client;
}

export interface CodeGrant {
  clientId: string;
  workspaceId: string;
  /** The person who consented by signing in; absent or null when an API key was given. */
  userId?: string | null;
  redirectUri: string;
  codeChallenge: string;
  scopes: OAuthScope[];
  resource: string | null;
}

/** Stores a fresh code for an approved request and answers it; the code itself is never stored. */
export async function issueAuthorizationCode(runtime: Runtime, grant: CodeGrant): Promise<string> {
  const code = `np_oac_${randomBase62(40)}`;
  const now = runtime.clock.now();
  await runtime.db
    .insert(oauthAuthorizationCodes)
    .values({
      codeHash: sha256Hex(code),
      clientId: grant.clientId,
      workspaceId: grant.workspaceId,
      userId: grant.userId ?? null,
      redirectUri: grant.redirectUri,
      codeChallenge: grant.codeChallenge,
      scope: grant.scopes.join(' '),
      resource: grant.resource,
      familyId: newId(),
      createdAt: now,
      expiresAt: new Date(now.getTime() + CODE_LIFETIME_MS),
    })
    .run();
  return code;
}

/** The RFC 6749 section 5.1 answer. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

interface Family {
  familyId: string;
  clientId: string;
  workspaceId: string;
  userId: string | null;
  scope: string;
  resource: string | null;
}

/** Issues an access and a refresh token of one family; called inside the write transaction that spends the code or the old refresh token. */
async function issueTokens(runtime: Runtime, family: Family): Promise<TokenResponse> {
  const now = runtime.clock.now();
  const accessToken = ACCESS_TOKEN_PREFIX + randomBase62(40);
  const refreshToken = REFRESH_TOKEN_PREFIX + randomBase62(40);
  const row = (token: string, kind: 'access' | 'refresh', lifetime: number) => ({
    tokenHash: sha256Hex(token),
    kind,
    ...family,
    createdAt: now,
    expiresAt: new Date(now.getTime() + lifetime),
  });
  await runtime.db
    .insert(oauthTokens)
    .values([
      row(accessToken, 'access', ACCESS_TOKEN_LIFETIME_MS),
      row(refreshToken, 'refresh', REFRESH_TOKEN_LIFETIME_MS),
    ])
    .run();
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_LIFETIME_MS / 1000,
    refresh_token: refreshToken,
    scope: family.scope,
  };
}

async function revokeFamily(runtime: Runtime, familyId: string, now: Date): Promise<void> {
  await runtime.db
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.familyId, familyId), isNull(oauthTokens.revokedAt)))
    .run();
}

/**
 * What a token request's `resource` leaves the grant with (RFC 8707 section 2.2), or why it is refused.
 * Absent, the grant keeps its own. Named, it must be a resource this service serves, and the grant's
 * own or the read-only door, which only narrows: tokens for it keep only `read` (so a client that
 * signed in to `/mcp/readonly` before it had its own metadata is narrowed at its next refresh). Any
 * other is `invalid_target`, not `invalid_grant`: the grant is sound, the target is not.
 */
function tokenTarget(
  runtime: Runtime,
  asked: string | undefined,
  grant: { resource: string | null; scope: string },
): { resource: string | null; scope: string } | ServiceError {
  if (asked === undefined) return { resource: grant.resource, scope: grant.scope };
  const target = protectedResourceOf(runtime.config, asked);
  if (!target) {
    return new ServiceError(
      'invalid_target',
      `resource must be one this service serves: ${acceptedResources(runtime.config).join(', ')}.`,
    );
  }
  if (grant.resource !== null && asked !== grant.resource && target !== 'readonly') {
    return new ServiceError('invalid_target', `resource differs from the one this grant is for (${grant.resource}).`);
  }
  const scopes = (parseScope(grant.scope) ?? []).filter((scope) => resourceScopes(target).includes(scope));
  if (scopes.length === 0) {
    return new ServiceError(
      'invalid_target',
      `This grant allows nothing ${asked} serves (its scope is ${grant.scope}).`,
    );
  }
  return { resource: asked, scope: scopes.join(' ') };
}

/** base64url SHA-256 of the verifier (RFC 7636 section 4.6), compared in constant time. */
function verifierMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * The authorization_code grant. A code is spent by its first exchange, right or wrong verifier
 * alike, so a stolen code gives one guess; a replay of a spent code revokes what it yielded
 * (RFC 6749 section 4.1.2).
 */
export async function exchangeAuthorizationCode(
  runtime: Runtime,
  client: OAuthClient,
  input: { code?: string; codeVerifier?: string; redirectUri?: string; resource?: string },
): Promise<TokenResponse> {
  if (!input.code) throw new ServiceError('invalid_request', 'code is required.');
  if (!input.codeVerifier || !VERIFIER_PATTERN.test(input.codeVerifier)) {
    throw new ServiceError('invalid_request', 'code_verifier is required: 43 to 128 unreserved characters (RFC 7636).');
  }
  if (!input.redirectUri) throw new ServiceError('invalid_request', 'redirect_uri is required.');
  const { code, codeVerifier, redirectUri } = input;
  const now = runtime.clock.now();
  const refused = (why: string) => new ServiceError('invalid_grant', why);
  const outcome = await writeTransaction(runtime.db, async () => {
    const row = await runtime.db
      .select()
      .from(oauthAuthorizationCodes)
      .where(eq(oauthAuthorizationCodes.codeHash, sha256Hex(code)))
      .get();
    if (!row || row.clientId !== client.id) return refused('The code is unknown or was issued to another client.');
    if (row.usedAt !== null) {
      await revokeFamily(runtime, row.familyId, now);
      return refused('The code was already used; the tokens issued from it are revoked.');
    }
    // Spent only if still unspent: two exchanges of one code at once (on two hosts, say) both read it
    // unspent, and the second to write finds it spent, as a replay.
    const spent = await runtime.db
      .update(oauthAuthorizationCodes)
      .set({ usedAt: now })
      .where(and(eq(oauthAuthorizationCodes.codeHash, row.codeHash), isNull(oauthAuthorizationCodes.usedAt)))
      .run();
    if (spent.changes !== 1) {
      await revokeFamily(runtime, row.familyId, now);
      return refused('The code was already used; the tokens issued from it are revoked.');
    }
    if (row.expiresAt <= now) return refused('The code has expired; start the authorization again.');
    if (row.redirectUri !== redirectUri) return refused('redirect_uri differs from the authorization request.');
    const target = tokenTarget(runtime, input.resource, row);
    if (target instanceof ServiceError) return target;
    if (!verifierMatches(codeVerifier, row.codeChallenge))
      return refused('code_verifier does not match the challenge.');
    return issueTokens(runtime, {
      familyId: row.familyId,
      clientId: row.clientId,
      workspaceId: row.workspaceId,
      userId: row.userId,
      ...target,
    });
  });
  if (outcome instanceof ServiceError) throw outcome;
  return outcome;
}

/**
 * The refresh_token grant: every use spends the token and issues a new pair (rotation). A spent
 * token sent again means two parties hold it, so the whole family is revoked (OAuth 2.1 section 4.3.1).
 */
export async function refreshTokens(
  runtime: Runtime,
  client: OAuthClient,
  input: { refreshToken?: string; scope?: string; resource?: string },
): Promise<TokenResponse> {
  if (!input.refreshToken) throw new ServiceError('invalid_request', 'refresh_token is required.');
  const { refreshToken } = input;
  const now = runtime.clock.now();
  const refused = (why: string) => new ServiceError('invalid_grant', why);
  const outcome = await writeTransaction(runtime.db, async () => {
    const row = await runtime.db
      .select()
      .from(oauthTokens)
      .where(and(eq(oauthTokens.tokenHash, sha256Hex(refreshToken)), eq(oauthTokens.kind, 'refresh')))
      .get();
    if (!row || row.clientId !== client.id)
      return refused('The refresh token is unknown or belongs to another client.');
    if (row.usedAt !== null) {
      await revokeFamily(runtime, row.familyId, now);
      return refused('The refresh token was already used; every token of this grant is now revoked.');
    }
    if (row.revokedAt !== null) return refused('The refresh token has been revoked.');
    if (row.expiresAt <= now) return refused('The refresh token has expired; authorize again.');
    const target = tokenTarget(runtime, input.resource, row);
    if (target instanceof ServiceError) return target;
    const granted = target.scope.split(' ');
    let scope = target.scope;
    if (input.scope !== undefined) {
      const asked = parseScope(input.scope);
      if (!asked || asked.some((s) => !granted.includes(s))) {
        return new ServiceError('invalid_scope', `scope may only narrow the grant's scopes (${target.scope}).`);
      }
      scope = asked.join(' ');
    }
    const spent = await runtime.db
      .update(oauthTokens)
      .set({ usedAt: now })
      .where(and(eq(oauthTokens.tokenHash, row.tokenHash), isNull(oauthTokens.usedAt)))
      .run();
    // Spent meanwhile by another refresh (on another host, say): two parties hold it, as above.
    if (spent.changes !== 1) {
      await revokeFamily(runtime, row.familyId, now);
      return refused('The refresh token was already used; every token of this grant is now revoked.');
    }
    return issueTokens(runtime, {
      familyId: row.familyId,
      clientId: row.clientId,
      workspaceId: row.workspaceId,
      userId: row.userId,
      scope,
      // Grants from before every grant named its resource are bound at their next refresh: to the
      // resource the refresh names, else to this instance's /mcp.
      resource: target.resource ?? mcpResourceUrl(runtime.config),
    });
  });
  if (outcome instanceof ServiceError) throw outcome;
  return outcome;
}

/**
 * RFC 7009: revokes the token if it is one of this client's, and, for a refresh token, the grant it
 * belongs to. Anything else is ignored: the answer is the same whatever was sent.
 */
export async function revokeToken(runtime: Runtime, client: OAuthClient, token: string | undefined): Promise<void> {
  if (!token) return;
  const row = await runtime.db
    .select()
    .from(oauthTokens)
    .where(eq(oauthTokens.tokenHash, sha256Hex(token)))
    .get();
  if (!row || row.clientId !== client.id) return;
  const now = runtime.clock.now();
  if (row.kind === 'refresh') return revokeFamily(runtime, row.familyId, now);
  await runtime.db.update(oauthTokens).set({ revokedAt: now }).where(eq(oauthTokens.tokenHash, row.tokenHash)).run();
}

export interface AccessGrant {
  workspace: Workspace;
  clientId: string;
  /** The person the grant acts for, or null (a grant made with an API key). */
  userId: string | null;
  scopes: OAuthScope[];
  resource: string | null;
}

/**
 * Resolves an access token to its grant and workspace, or answers why it is refused (invalid_key, expired_key). One prepared join
 * (tokens, workspace, plan) per request: building the query each time cost about as much as the
 * rest of a GET (measured, bench rest). Touches `last_used_at` at most once a minute, so a busy token
 * does not write on every request.
 */
export async function resolveAccessToken(runtime: Runtime, token: string): Promise<AccessGrant | ServiceError> {
  const found = await statements(runtime.db).accessTokenWithWorkspace.get({ tokenHash: sha256Hex(token) });
  if (!found || found.token.revokedAt !== null)
    return new ServiceError('invalid_key', 'The access token is unknown or has been revoked.');
  const { token: row } = found;
  const now = runtime.clock.now();
  if (row.expiresAt <= now)
    return new ServiceError('expired_key', 'The access token has expired; use the refresh token.');
  if (row.lastUsedAt === null || now.getTime() - row.lastUsedAt.getTime() >= 60_000) {
    await runtime.db.update(oauthTokens).set({ lastUsedAt: now }).where(eq(oauthTokens.tokenHash, row.tokenHash)).run();
  }
  return {
    workspace: toWorkspace(found.workspace, found.plan),
    clientId: row.clientId,
    userId: row.userId,
    scopes: parseScope(row.scope) ?? [],
    resource: row.resource,
  };
}

const statements = preparedStatements((db) => ({
  accessTokenWithWorkspace: db
    .select({ token: oauthTokens, workspace: workspaces, plan: plans })
    .from(oauthTokens)
    .innerJoin(workspaces, eq(workspaces.id, oauthTokens.workspaceId))
    .innerJoin(plans, eq(plans.name, workspaces.plan))
    .where(and(eq(oauthTokens.tokenHash, sql.placeholder('tokenHash')), eq(oauthTokens.kind, 'access')))
    .prepare(),
}));
