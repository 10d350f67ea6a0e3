import { and, eq, isNull } from 'drizzle-orm';
import { writeTransaction, type Db } from '../../../db/client.ts';
import { oauthAuthorizationCodes, oauthClients, oauthTokens } from '../../../db/schema/index.ts';
import { getWorkspace } from '../accounts/workspaces.ts';
import type { Runtime } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { OAUTH_SCOPES, type OAuthScope } from './metadata.ts';

/** One OAuth client holding live tokens for a workspace, as the operator sees it. */
export interface HeldGrant {
  clientId: string;
  clientName: string | null;
  /** Every scope some live token of the client carries, in the service's order. */
  scopes: OAuthScope[];
  /** The latest use of any of its tokens (an access token on a request, a refresh token exchanged), or null. */
  lastUsedAt: Date | null;
}

const later = (a: Date | null, b: Date | null): Date | null => (a === null ? b : b === null || a >= b ? a : b);

/**
 * The clients that hold a live token (unrevoked, unexpired, access or refresh) for the workspace,
 * oldest registration first. A client whose tokens all expired or were revoked holds nothing and is left out.
 */
export async function listHeldGrants(runtime: Runtime, workspaceId: string): Promise<HeldGrant[]> {
  await getWorkspace(runtime.db, workspaceId);
  const now = runtime.clock.now();
  const rows = await runtime.db
    .select({ token: oauthTokens, clientName: oauthClients.clientName, registeredAt: oauthClients.createdAt })
    .from(oauthTokens)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthTokens.clientId))
    .where(eq(oauthTokens.workspaceId, workspaceId))
    .all();
  const byClient = new Map<string, HeldGrant & { live: boolean; registeredAt: Date }>();
  for (const { token, clientName, registeredAt } of rows) {
    const grant = byClient.get(token.clientId) ?? {
      clientId: token.clientId,
      clientName,
      scopes: [],
      lastUsedAt: null,
      live: false,
      registeredAt,
    };
    grant.lastUsedAt = later(grant.lastUsedAt, later(token.lastUsedAt, token.usedAt));
    if (token.revokedAt === null && token.expiresAt > now) {
      grant.live = true;
      const held = token.scope.split(' ');
      grant.scopes = OAUTH_SCOPES.filter((scope) => grant.scopes.includes(scope) || held.includes(scope));
    }
    byClient.set(token.clientId, grant);
  }
  return [...byClient.values()]
    .filter((grant) => grant.live)
    .sort((a, b) => a.registeredAt.getTime() - b.registeredAt.getTime() || a.clientId.localeCompare(b.clientId))
    .map(({ clientId, clientName, scopes, lastUsedAt }) => ({ clientId, clientName, scopes, lastUsedAt }));
}

/**
 * Ends a client's access to a workspace at once: every token it holds there is revoked (the next
 * request with one answers 401), and its codes not yet exchanged are spent, so none turns into a token.
 * Answers how many live tokens were revoked; a client holding none there is not_found.
 */
export async function revokeHeldGrant(
  runtime: Runtime,
  workspaceId: string,
  clientId: string,
): Promise<{ revokedTokens: number }> {
  await getWorkspace(runtime.db, workspaceId);
  const now = runtime.clock.now();
  const revokedTokens = await writeTransaction(runtime.db, async () => {
    const forClient = and(
      eq(oauthTokens.workspaceId, workspaceId),
      eq(oauthTokens.clientId, clientId),
      isNull(oauthTokens.revokedAt),
    );
    const live = (
      await runtime.db.select({ expiresAt: oauthTokens.expiresAt }).from(oauthTokens).where(forClient).all()
    ).filter((token) => token.expiresAt > now).length;
    await runtime.db.update(oauthTokens).set({ revokedAt: now }).where(forClient).run();
    await runtime.db
      .update(oauthAuthorizationCodes)
      .set({ usedAt: now })
      .where(
        and(
          eq(oauthAuthorizationCodes.workspaceId, workspaceId),
          eq(oauthAuthorizationCodes.clientId, clientId),
          isNull(oauthAuthorizationCodes.usedAt),
        ),
      )
      .run();
    return live;
  });
  if (revokedTokens === 0) {
    throw new ServiceError('not_found', `Client ${clientId} holds no live token for workspace ${workspaceId}.`);
  }
  return { revokedTokens };
}

/**
 * Ends every grant a person approved by signing in, in every workspace: their tokens are revoked and
 * their codes not yet exchanged are spent. Called when the person's password is set or reset, so
 * whoever had the account before keeps no assistant token. Runs inside the caller's transaction.
 */
export async function revokeGrantsOfPerson(db: Db, userId: string, now: Date): Promise<void> {
  await db
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.userId, userId), isNull(oauthTokens.revokedAt)))
    .run();
  await db
    .update(oauthAuthorizationCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthAuthorizationCodes.userId, userId), isNull(oauthAuthorizationCodes.usedAt)))
    .run();
}
