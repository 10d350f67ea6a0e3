import { eq, sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import { preparedStatements, type Db } from '../../../db/client.ts';
import { apiKeyUses, apiKeys, authEpoch, plans, workspaces } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { newId, randomBase62, toBase62 } from '../ids.ts';
import {
  OAUTH_SCOPES,
  protectedResourceOf,
  resourceScopes,
  type OAuthScope,
  type ProtectedResource,
} from '../oauth/metadata.ts';
import { resolveAccessToken } from '../oauth/grants.ts';
import { isActiveStatus, toWorkspace, type Workspace } from './workspace.ts';
import { personPrincipal, type Principal } from '../people/principal.ts';
import { membershipOf } from '../people/memberships.ts';

/**
 * Key format: `np_live_` + 32 random base62 characters + a 6-character
 * checksum of them, so a mistyped key is refused without a database lookup.
 */
export const API_KEY_PREFIX = 'np_live_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;

const checksum = (body: string): string =>
  toBase62(createHash('sha256').update(body).digest().subarray(0, 8), CHECKSUM_LENGTH);

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

function generateApiKey(): string {
  const body = randomBase62(RANDOM_LENGTH);
  return `${API_KEY_PREFIX}${body}${checksum(body)}`;
}

function hasValidChecksum(key: string): boolean {
  const rest = key.slice(API_KEY_PREFIX.length);
  if (!/^[0-9A-Za-z]+$/.test(rest) || rest.length !== RANDOM_LENGTH + CHECKSUM_LENGTH) return false;
  return checksum(rest.slice(0, RANDOM_LENGTH)) === rest.slice(RANDOM_LENGTH);
}

/** The name a key gets when its maker gives none (the workspace's first key, a CLI key without --name). */
export const DEFAULT_KEY_NAME = 'Unnamed key';

export async function issueApiKey(
  db: Db,
  input: { workspaceId: string; now: Date; expiresAt: Date | null; name?: string },
): Promise<{ keyId: string; apiKey: string }> {
  const apiKey = generateApiKey();
  const keyId = newId();
  await db
    .insert(apiKeys)
    .values({
      id: keyId,
      workspaceId: input.workspaceId,
      name: input.name ?? DEFAULT_KEY_NAME,
      keyHash: hashApiKey(apiKey),
      displayPrefix: apiKey.slice(0, API_KEY_PREFIX.length + 4),
      lastFour: apiKey.slice(-4),
      createdAt: input.now,
      expiresAt: input.expiresAt,
    })
    .run();
  return { keyId, apiKey };
}

export async function revokeApiKey(runtime: Runtime, keyId: string): Promise<void> {
  const row = await runtime.db
    .update(apiKeys)
    .set({ revokedAt: runtime.clock.now() })
    .where(eq(apiKeys.id, keyId))
    .returning({ id: apiKeys.id })
    .get();
  if (!row) throw new ServiceError('not_found', `No API key with id ${keyId}.`);
}

/** The raw key from an `Authorization` header value, or null when there is no Bearer key of our prefix. */
export function bearerKey(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match && match[1].startsWith(API_KEY_PREFIX) ? match[1] : null;
}

/** Who a request acts for, and what it may do: an API key may do everything, an OAuth token its scopes. */
export interface Credential {
  workspace: Workspace;
  scopes: readonly OAuthScope[];
  /** The OAuth client acting, for a token; null for an API key. */
  oauthClientId: string | null;
  /**
   * The resource a token was minted for (RFC 8707), or null for an API key and for grants from before
   * tokens named one. A token for the read-only door carries only `read` wherever it is used.
   */
  resource: ProtectedResource | null;
  /** Who acts: the key, the client, or the person the token's grant is bound to (with their role). */
  principal: Principal;
}

/**
 * An OAuth access token's workspace, as a key's would be: refused alike when unknown, revoked,
 * expired, or minted for a resource this service is not (another PUBLIC_BASE_URL).
 */
async function tokenCredential(runtime: Runtime, token: string): Promise<Credential> {
  const grant = await resolveAccessToken(runtime, token);
  if (grant instanceof ServiceError) throw grant;
  const resource = grant.resource === null ? null : protectedResourceOf(runtime.config, grant.resource);
  if (resource === undefined)
    throw new ServiceError('invalid_key', 'The access token was issued for another resource.');
  // The limit travels with the token: one minted for the read-only door reads, on /mcp and REST alike.
  // Its grant was cut to read when it was authorized; this holds whatever the stored row says.
  const scopes =
    resource === null ? grant.scopes : grant.scopes.filter((scope) => resourceScopes(resource).includes(scope));
  if (grant.userId === null) {
    const principal: Principal = {
      type: 'oauth_client',
      id: grant.clientId,
      label: `OAuth client ${grant.clientId}`,
      role: null,
    };
    return { workspace: grant.workspace, scopes, oauthClientId: grant.clientId, resource, principal };
  }
  // A grant made by a person acts with their role as it is now: a changed role applies at once, and a
  // person no longer in the workspace leaves their tokens useless.
  const member = await membershipOf(runtime.db, grant.workspace.id, grant.userId);
  if (!member)
    throw new ServiceError('invalid_key', 'The person who authorized this token is no longer in the workspace.');
  return {
    workspace: grant.workspace,
    scopes,
    oauthClientId: grant.clientId,
    resource,
    principal: personPrincipal(member.user, member.role),
  };
}

/** authenticate(), with what the credential may do: the request context keeps the scopes. */
export async function authenticateCredential(
  runtime: Runtime,
  authorization: string | undefined,
  { planChecks }: { planChecks: boolean } = { planChecks: true },
): Promise<Credential> {
  const token = /^Bearer\s+(np_oat_\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (token === undefined) {
    const { workspace, principal } = await authenticateKey(runtime, authorization, { planChecks });
    return { workspace, scopes: OAUTH_SCOPES, oauthClientId: null, resource: null, principal };
  }
  const credential = await tokenCredential(runtime, token);
  if (planChecks) checkPlan(credential.workspace);
  return credential;
}

/**
 * Resolves an `Authorization` header to its workspace, checking in a fixed order:
 * header and prefix, lookup (unknown and revoked look alike), expiry, subscription, plan access.
 * `planChecks: false` stops after the key checks: GET /me must answer an inactive or API-less
 * workspace, since the 402 and 403 errors tell the caller to read the plan there.
 */
export async function authenticate(
  runtime: Runtime,
  authorization: string | undefined,
  { planChecks }: { planChecks: boolean } = { planChecks: true },
): Promise<Workspace> {
  if (/^Bearer\s+np_oat_/i.test(authorization ?? '')) {
    return (await authenticateCredential(runtime, authorization, { planChecks })).workspace;
  }
  return authenticateApiKey(runtime, authorization, { planChecks });
}

/**
 * authenticate() for workspace API keys alone: an OAuth token, refresh token or code is refused like an
 * unknown key. What proves control of a workspace (the consent page) must not accept a credential that
 * was itself derived from a narrower grant.
 */
export async function authenticateApiKey(
  runtime: Runtime,
  authorization: string | undefined,
  { planChecks }: { planChecks: boolean } = { planChecks: true },
): Promise<Workspace> {
  return (await authenticateKey(runtime, authorization, { planChecks })).workspace;
}

/** authenticateApiKey(), with the key as the principal (full access: a key has no role). */
async function authenticateKey(
  runtime: Runtime,
  authorization: string | undefined,
  { planChecks }: { planChecks: boolean },
): Promise<{ workspace: Workspace; principal: Principal }> {
  const key = bearerKey(authorization);
  if (!key) {
    throw new ServiceError('missing_key', `Send "Authorization: Bearer <API key>"; keys begin with ${API_KEY_PREFIX}.`);
  }
  const resolved = await resolveKey(runtime.db, key);
  if (!resolved || resolved.revoked) {
    throw new ServiceError('invalid_key', 'The API key is not valid: it is unknown or has been revoked.');
  }
  if (resolved.expiresAt !== null && resolved.expiresAt <= runtime.clock.now().getTime()) {
    throw new ServiceError('expired_key', 'The API key has expired; create a new one.');
  }
  const { workspace } = resolved;
  if (planChecks) checkPlan(workspace);
  await noteKeyUse(runtime, resolved);
  return { workspace, principal: { type: 'api_key', id: resolved.keyId, label: resolved.label, role: null } };
}

/**
 * The plan checks of authenticate(), for a credential authenticated without them (the MCP route
 * authenticates once per request, before it knows which tool is called and whether it checks the plan).
 */
export function checkPlan(workspace: Workspace): void {
  if (!isActiveStatus(workspace.planStatus)) {
    throw new ServiceError(
      'payment_required',
      `The workspace subscription is ${workspace.planStatus}; update billing to continue.`,
    );
  }
  if (!workspace.features.api_access) {
    throw new ServiceError(
      'plan_forbidden',
      `The ${workspace.plan} plan has no API access; GET /api/v1/me shows the plan.`,
    );
  }
}

interface ResolvedKey {
  keyId: string;
  /** When this process last wrote the key's use (ms), so it writes at most once a minute. */
  useNotedAt: number;
  /** How the key appears in an item's history: its prefix and last four characters. */
  label: string;
  workspace: Workspace;
  expiresAt: number | null;
  revoked: boolean;
}

/** Bounds the cache; past it the cache starts over (only keys in use come back). */
const MAX_CACHED_KEYS = 10_000;
const resolvedKeys = new WeakMap<Db, { epoch: number; byHash: Map<string, ResolvedKey> }>();

/**
 * Looks a key up, from a per-connection cache while the auth epoch stands still. Any write to keys,
 * workspaces or plans, by any process, moves the epoch (database triggers), so revocations and plan
 * changes apply on the very next request; reading the epoch costs one indexed row instead of a
 * three-table join per request.
 */
async function resolveKey(db: Db, key: string): Promise<ResolvedKey | undefined> {
  const keyHash = hashApiKey(key);
  const { epoch, keyWithWorkspace } = statements(db);
  const version = (await epoch.get())!.version;
  let cache = resolvedKeys.get(db);
  if (!cache || cache.epoch !== version) {
    cache = { epoch: version, byHash: new Map() };
    resolvedKeys.set(db, cache);
  }
  const cached = cache.byHash.get(keyHash);
  if (cached) return cached;
  // Only a key that passed its checksum once is ever cached, so the check guards the lookup alone.
  if (!hasValidChecksum(key)) return undefined;
  const row = await keyWithWorkspace.get({ keyHash });
  if (!row) return undefined;
  const resolved = {
    keyId: row.key.id,
    useNotedAt: 0,
    label: `API key ${row.key.displayPrefix}…${row.key.lastFour}`,
    workspace: toWorkspace(row.workspace, row.plan),
    expiresAt: row.key.expiresAt?.getTime() ?? null,
    revoked: row.key.revokedAt !== null,
  };
  if (cache.byHash.size >= MAX_CACHED_KEYS) cache.byHash.clear();
  cache.byHash.set(keyHash, resolved);
  return resolved;
}

/** How often a key's last use is written: enough for "last used", one small write a minute per key in use. */
const KEY_USE_RESOLUTION_MS = 60_000;

/**
 * Notes that the key was used now, at most once a minute per key and process. The row lives apart
 * from api_keys, so the write leaves the auth epoch (and every process's key cache) alone.
 */
async function noteKeyUse(runtime: Runtime, resolved: ResolvedKey): Promise<void> {
  const now = runtime.clock.now().getTime();
  if (now - resolved.useNotedAt < KEY_USE_RESOLUTION_MS) return;
  resolved.useNotedAt = now;
  await statements(runtime.db).noteUse.run({ keyId: resolved.keyId, at: now });
}

const statements = preparedStatements((db) => ({
  noteUse: db
    .insert(apiKeyUses)
    .values({ keyId: sql.placeholder('keyId'), lastUsedAt: sql`${sql.placeholder('at')}` })
    .onConflictDoUpdate({ target: apiKeyUses.keyId, set: { lastUsedAt: sql`excluded.last_used_at` } })
    .prepare(),
  epoch: db.select({ version: authEpoch.version }).from(authEpoch).where(eq(authEpoch.id, 1)).prepare(),
  keyWithWorkspace: db
    .select({ key: apiKeys, workspace: workspaces, plan: plans })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    .innerJoin(plans, eq(plans.name, workspaces.plan))
    .where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
    .prepare(),
}));

export async function createApiKey(
  runtime: Runtime,
  input: { workspaceId: string; expiresAt?: Date | null; name?: string },
): Promise<{ keyId: string; apiKey: string }> {
  return issueApiKey(runtime.db, {
    workspaceId: input.workspaceId,
    now: runtime.clock.now(),
    expiresAt: input.expiresAt ?? null,
    ...(input.name !== undefined && { name: input.name }),
  });
}
