import { and, eq, isNull } from 'drizzle-orm';
import { writeTransaction } from '../../../db/client.ts';
import { oauthClients, oauthTokens, workspaces } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { OAUTH_SCOPES, type OAuthScope } from './metadata.ts';

/**
 * The OAuth grants a person approved by signing in on the consent page, as the dashboard shows them
 * to that person. One grant is one approval: the token family its code started (every refresh stays in
 * it), so approving the same assistant twice shows two grants, each revocable alone. Grants made
 * with an API key belong to no person and are the operator's (`list-grants`, `revoke-grant`).
 */
export interface PersonGrant {
  /** The token family's id: names the grant, and is no credential. */
  id: string;
  clientId: string;
  clientName: string | null;
  workspaceId: string;
  workspaceName: string;
  /** The scopes its live tokens carry, in the service's order. */
  scopes: OAuthScope[];
  /** When the person approved it: its first token. */
  approvedAt: Date;
  /** The latest use of any of its tokens (a request with an access token, a refresh exchanged), or null. */
  lastUsedAt: Date | null;
}

const later = (a: Date | null, b: Date | null): Date | null => (a === null ? b : b === null || a >= b ? a : b);

/** The person's grants still holding a live token (unrevoked, unexpired), newest approval first. */
export async function listPersonGrants(runtime: Runtime, userId: string): Promise<PersonGrant[]> {
  const now = runtime.clock.now();
  const rows = await runtime.db
    .select({ token: oauthTokens, clientName: oauthClients.clientName, workspaceName: workspaces.name })
    .from(oauthTokens)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthTokens.clientId))
    .innerJoin(workspaces, eq(workspaces.id, oauthTokens.workspaceId))
    .where(eq(oauthTokens.userId, userId))
    .all();
  const byFamily = new Map<string, PersonGrant & { live: boolean }>();
  for (const { token, clientName, workspaceName } of rows) {
    const grant = byFamily.get(token.familyId) ?? {
      id: token.familyId,
      clientId: token.clientId,
      clientName,
      workspaceId: token.workspaceId,
      workspaceName,
      scopes: [],
      approvedAt: token.createdAt,
      lastUsedAt: null,
      live: false,
    };
    if (token.createdAt < grant.approvedAt) grant.approvedAt = token.createdAt;
    grant.lastUsedAt = later(grant.lastUsedAt, later(token.lastUsedAt, token.usedAt));
    if (token.revokedAt === null && token.expiresAt > now) {
      grant.live = true;
      const held = token.scope.split(' ');
      grant.scopes = OAUTH_SCOPES.filter((scope) => grant.scopes.includes(scope) || held.includes(scope));
    }
    byFamily.set(token.familyId, grant);
  }
  return [...byFamily.values()]
    .filter((grant) => grant.live)
    .sort((a, b) => b.approvedAt.getTime() - a.approvedAt.getTime() || a.id.localeCompare(b.id))
    .map(({ live: _live, ...grant }) => grant);
}

/**
 * Ends one of the person's grants at once: every token of its family is revoked (the next request
 * with one answers 401). A grant that is not the person's, or holds no live token, is not_found,
 * whoever else it belongs to.
 */
export async function revokePersonGrant(
  runtime: Runtime,
  userId: string,
  grantId: string,
): Promise<{ revokedTokens: number }> {
  const now = runtime.clock.now();
  const ofGrant = and(eq(oauthTokens.familyId, grantId), eq(oauthTokens.userId, userId), isNull(oauthTokens.revokedAt));
  const revokedTokens = await writeTransaction(runtime.db, async () => {
    const live = (
      await runtime.db.select({ expiresAt: oauthTokens.expiresAt }).from(oauthTokens).where(ofGrant).all()
    ).filter((token) => token.expiresAt > now).length;
    if (live === 0) return 0;
    // Its code was spent when the family began, so no code can start it again.
    await runtime.db.update(oauthTokens).set({ revokedAt: now }).where(ofGrant).run();
    return live;
  });
  if (revokedTokens === 0)
    throw new ServiceError('not_found', 'You have no such assistant access, or it has ended already.');
  return { revokedTokens };
}
