import { asc, eq } from 'drizzle-orm';
import type { Platform } from '../../db/schema/index.ts';
import { publishAttempts, sandboxPosts, socialAccounts } from '../../db/schema/index.ts';
import type { Workspace } from '../../src/core/accounts/workspaces.ts';
import { publishContent, updateContent } from '../../src/core/content/operations.ts';
import type { ContentResource } from '../../src/core/content/serialize.ts';
import { contextFor, type Runtime } from '../../src/core/context.ts';
import { runOperation } from '../../src/core/operation.ts';
import type { Connectors, PlatformConnector } from '../../src/core/publishing/connector.ts';
import { connectorsFor } from '../../src/core/publishing/connectors/index.ts';
import { newId } from '../../src/core/ids.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import type { SocialAccountRow } from '../../src/core/social-accounts/serialize.ts';
import { storeTokens, type TokenGrant } from '../../src/core/social-accounts/tokens.ts';

/** Connects one account per platform, as the admin CLI would; returns them by platform. */
export async function connectAccounts(runtime: Runtime, workspace: Workspace, platforms: readonly Platform[]) {
  const accounts: Array<[Platform, Awaited<ReturnType<typeof connectSocialAccount>>]> = [];
  for (const platform of platforms) {
    accounts.push([
      platform,
      await connectSocialAccount(runtime, {
        workspaceId: workspace.id,
        platform,
        username: `${workspace.name.replace(/\W/g, '')}_${platform}`,
      }),
    ]);
  }
  return Object.fromEntries(accounts) as Record<Platform, Awaited<ReturnType<typeof connectSocialAccount>>>;
}

export async function publish(
  runtime: Runtime,
  workspace: Workspace,
  id: string,
  body: Record<string, unknown> = {},
): Promise<ContentResource> {
  // A real publish: callers never pass dry_run here (a preview is not a content item).
  return (await runOperation(publishContent, contextFor(runtime, workspace, 'rest'), {
    id,
    ...body,
  })) as ContentResource;
}

export async function update(
  runtime: Runtime,
  workspace: Workspace,
  id: string,
  body: Record<string, unknown>,
): Promise<ContentResource> {
  return runOperation(updateContent, contextFor(runtime, workspace, 'rest'), { id, ...body });
}

/** The sandbox connectors with some platforms replaced, e.g. by one that refuses or never answers. */
export function connectorsWith(
  runtime: Runtime,
  replacements: Partial<Record<Platform, Partial<PlatformConnector>>>,
): Connectors {
  const base = connectorsFor(runtime);
  const map = new Map<string, PlatformConnector>(base);
  for (const [platform, replacement] of Object.entries(replacements)) {
    map.set(platform, { ...base.get(platform)!, ...replacement });
  }
  return map;
}

/** What the sandbox platforms received for an item: their own ledger, joined to our attempts. */
export async function sandboxPostsFor(runtime: Runtime, contentId: string) {
  return runtime.db
    .select({
      platform: sandboxPosts.platform,
      id: sandboxPosts.id,
      text: sandboxPosts.text,
      mediaUrls: sandboxPosts.mediaUrls,
    })
    .from(sandboxPosts)
    .innerJoin(publishAttempts, eq(publishAttempts.id, sandboxPosts.attemptId))
    .where(eq(publishAttempts.contentId, contentId))
    .orderBy(asc(sandboxPosts.platform))
    .all();
}

export async function attemptsFor(runtime: Runtime, contentId: string) {
  return runtime.db
    .select()
    .from(publishAttempts)
    .where(eq(publishAttempts.contentId, contentId))
    .orderBy(asc(publishAttempts.attemptedAt))
    .all();
}

/**
 * A live account as the OAuth callback leaves it (mode `live`, active, tokens stored encrypted),
 * without the consent dance: for tests about what happens after connecting.
 */
export async function connectLiveAccount(
  runtime: Runtime,
  workspace: Workspace,
  platform: Platform,
  grant: TokenGrant,
  fields: { platformUserId?: string; username?: string } = {},
): Promise<SocialAccountRow> {
  const now = runtime.clock.now();
  const row = await runtime.db
    .insert(socialAccounts)
    .values({
      id: newId(),
      workspaceId: workspace.id,
      platform,
      platformUserId: fields.platformUserId ?? '1234567890',
      username: fields.username ?? `live_${platform}`,
      mode: 'live',
      status: 'active',
      scopes: grant.scopes ?? [],
      connectedAt: now,
      createdAt: now,
    })
    .returning()
    .get();
  await storeTokens(runtime, row.id, grant);
  return (await runtime.db.select().from(socialAccounts).where(eq(socialAccounts.id, row.id)).get())!;
}
