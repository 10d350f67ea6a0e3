/**
 * Connecting a live account, the last step: the account and its tokens stored (a reconnect keeps its
 * id), and `social_account.connected` recorded, in one transaction.
 */
import { and, eq } from 'drizzle-orm';
import { writeTransaction, type Db } from '../../../db/client.ts';
import { socialAccounts, type Platform } from '../../../db/schema/index.ts';
import { findWorkspace } from '../accounts/workspaces.ts';
import type { Runtime } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { recordEvent } from '../events/record-event.ts';
import { newId } from '../ids.ts';
import type { ConnectableAccount, LiveProfile } from '../platforms/platform-client.ts';
import { assertRoomForAnotherAccount } from './operations.ts';
import { toSocialAccountResource, type SocialAccountResource } from './serialize.ts';
import { storeTokens, type TokenGrant } from './tokens.ts';

/**
 * Upserts the account, unique per (workspace, platform, platform user id): a reconnect keeps the id
 * and replaces the tokens. Taking an inactive or new account active counts against platforms_limit.
 */
export async function storeConnection(
  runtime: Runtime,
  workspaceId: string,
  platform: Platform,
  requestedScopes: readonly string[],
  grant: TokenGrant,
  profile: LiveProfile,
): Promise<{ account: SocialAccountResource; workspaceName: string }> {
  const { db } = runtime;
  const now = runtime.clock.now();
  return writeTransaction(db, async () => {
    const workspace = await findWorkspace(db, workspaceId);
    if (!workspace) throw new ServiceError('not_found', `No workspace with id ${workspaceId}.`);
    const existing = await db
      .select()
      .from(socialAccounts)
      .where(
        and(
          eq(socialAccounts.workspaceId, workspace.id),
          eq(socialAccounts.platform, platform),
          eq(socialAccounts.platformUserId, profile.platformUserId),
        ),
      )
      .get();
    if (!existing?.isActive) await assertRoomForAnotherAccount(db, workspace);
    const fields = {
      username: profile.username,
      displayName: profile.displayName,
      mode: 'live' as const,
      status: 'active' as const,
      // Platforms that do not echo the grant's scopes granted what was asked.
      scopes: grant.scopes ?? [...requestedScopes],
      profileUrl: profile.profileUrl,
      connectedAt: now,
      // A refresh in flight holds tokens from before this consent: dropping its lease makes its
      // write (conditional on the lease) a no-op, so it cannot overwrite the pair stored here.
      refreshLeaseToken: null,
      refreshLeaseUntil: null,
    };
    const accountId = existing?.id ?? newId();
    if (existing) {
      await db.update(socialAccounts).set(fields).where(eq(socialAccounts.id, accountId)).run();
    } else {
      await db
        .insert(socialAccounts)
        .values({
          id: accountId,
          workspaceId: workspace.id,
          platform,
          platformUserId: profile.platformUserId,
          createdAt: now,
          ...fields,
        })
        .run();
    }
    await storeTokens(runtime, accountId, grant);
    const row = (await db.select().from(socialAccounts).where(eq(socialAccounts.id, accountId)).get())!;
    await recordEvent(db, {
      workspaceId: workspace.id,
      type: 'social_account.connected',
      data: {
        platform,
        account: { id: row.id, platform_user_id: row.platformUserId, platform_username: row.username },
        reconnected: existing !== undefined,
      },
      at: now,
    });
    return { account: toSocialAccountResource(row, now), workspaceName: workspace.name };
  });
}

/** The offered accounts, tokens included, as the parked state keeps them (encrypted by connect-states.ts). */
export function serializeChoices(accounts: ConnectableAccount[]): string {
  return JSON.stringify(accounts);
}

export function parseChoices(json: string): ConnectableAccount[] {
  const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);
  return (JSON.parse(json) as ConnectableAccount[]).map(({ profile, grant }) => ({
    profile,
    grant: {
      ...grant,
      expiresAt: date(grant.expiresAt),
      refreshTokenExpiresAt: date(grant.refreshTokenExpiresAt),
    },
  }));
}

/** Whether the workspace has an active account on the platform: connecting another there may be a reconnect of it. */
/** The platforms on which the workspace has an active account. */
export async function activePlatformsOf(db: Db, workspaceId: string): Promise<Set<Platform>> {
  const rows = await db
    .selectDistinct({ platform: socialAccounts.platform })
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, workspaceId), eq(socialAccounts.isActive, true)))
    .all();
  return new Set(rows.map((row) => row.platform));
}

export async function hasActiveAccountOn(db: Db, workspaceId: string, platform: Platform): Promise<boolean> {
  const found = await db
    .select({ id: socialAccounts.id })
    .from(socialAccounts)
    .where(
      and(
        eq(socialAccounts.workspaceId, workspaceId),
        eq(socialAccounts.platform, platform),
        eq(socialAccounts.isActive, true),
      ),
    )
    .get();
  return found !== undefined;
}
