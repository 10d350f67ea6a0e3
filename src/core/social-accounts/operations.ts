import { and, count, desc, eq, sql } from 'drizzle-orm';
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { preparedStatements, writeTransaction, type Db } from '../../../db/client.ts';
import { socialAccounts } from '../../../db/schema/index.ts';
import type { PostProblem } from '../platforms/problems.ts';
import { PLATFORMS } from '../platforms/registry.ts';
import { getWorkspace, type Workspace } from '../accounts/workspaces.ts';
import type { Runtime } from '../context.ts';
import { ServiceError, validationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { listEnvelope, type ListEnvelope } from '../pagination.ts';
import { SocialAccountResource as SocialAccountResourceSchema } from './schemas.ts';
import { toSocialAccountResource, type SocialAccountResource, type SocialAccountRow } from './serialize.ts';

/**
 * GET /social-accounts: the workspace's full set (as the contract says), active and inactive, newest
 * first. Not paginated: platforms_limit keeps it small, so the envelope never has more.
 */
export const listSocialAccounts = defineOperation({
  name: 'listSocialAccounts',
  // An editor's and above: whoever creates or publishes content chooses its target platforms from
  // this list (the MCP flow calls it first). A viewer never needs it; the dashboard shows the
  // accounts page to admins only. API keys (no role) keep full access.
  role: 'editor',
  buckets: ['read'],
  scope: 'read',
  input: z.object({}),
  output: listEnvelope(SocialAccountResourceSchema),
  async run({ db, workspace, clock }): Promise<ListEnvelope<SocialAccountResource>> {
    const rows = await db
      .select()
      .from(socialAccounts)
      .where(eq(socialAccounts.workspaceId, workspace.id))
      .orderBy(desc(socialAccounts.createdAt), desc(socialAccounts.id))
      .all();
    const now = clock.now();
    return {
      object: 'list',
      data: rows.map((row) => toSocialAccountResource(row, now)),
      has_more: false,
      next_cursor: null,
    };
  },
});

const KNOWN_PLATFORMS = PLATFORMS.join(', ');

/** Field names as the resource spells them, so an error points at what the caller sees. */
const ConnectInput = z.object({
  platform: z
    .string({ error: `Give a platform id: one of ${KNOWN_PLATFORMS}.` })
    .trim()
    .toLowerCase()
    .pipe(
      z.enum(PLATFORMS, {
        error: (issue) => `Unknown platform "${String(issue.input)}"; known platform ids: ${KNOWN_PLATFORMS}.`,
      }),
    ),
  username: z
    .string({ error: 'Give a username.' })
    .trim()
    .transform((name) => name.replace(/^@/, ''))
    .pipe(z.string().min(1, 'The username is empty.').max(100, 'The username is longer than 100 characters.')),
  platform_user_id: z
    .string()
    .trim()
    .min(1, 'The platform user id is empty.')
    .max(100, 'The platform user id is longer than 100 characters.')
    .regex(/^\S+$/, 'The platform user id has no whitespace.')
    .optional(),
  display_name: z
    .string()
    .trim()
    .max(200, 'The display name is longer than 200 characters.')
    .transform((name) => name || null)
    .optional(),
});

export interface ConnectSocialAccountInput {
  workspaceId: string;
  platform: string;
  username: string;
  platformUserId?: string;
  displayName?: string;
}

/**
 * Platforms hand out numeric user ids (Meta's app-scoped ids, X's snowflakes), and the deauthorization
 * callbacks carry them as `user_id`. A connection made without one gets a random 16-digit numeric
 * string, so sandbox accounts look like real ones and a test can sign a callback for them. Always a
 * string: 16 digits can exceed 2^53, past which a JSON number loses digits.
 */
export const randomPlatformUserId = (): string =>
  String(randomInt(1, 10)) + Array.from({ length: 15 }, () => String(randomInt(0, 10))).join('');

/**
 * Connects an account to a workspace: the dashboard's OAuth flow, done by the admin CLI. Connecting
 * the same platform user again reactivates and refreshes that row (a new `connected_at`, same id and
 * `created_at`). Without a platform user id, an account of the workspace with the same platform and
 * username (case-insensitive) is taken to be the same one; otherwise a random id is made up.
 * `platforms_limit` caps the active accounts of the workspace (all platforms together). No event:
 * `social_account.connected` tells of OAuth connections (connect.ts), and an admin-made sandbox
 * account is not one.
 */
export async function connectSocialAccount(
  runtime: Runtime,
  input: ConnectSocialAccountInput,
): Promise<SocialAccountResource> {
  const parsed = ConnectInput.safeParse({
    platform: input.platform,
    username: input.username,
    platform_user_id: input.platformUserId,
    display_name: input.displayName,
  });
  if (!parsed.success) throw validationError(parsed.error);
  const fields = parsed.data;
  const { db } = runtime;
  const now = runtime.clock.now();
  return writeTransaction(db, async () => {
    const workspace = await getWorkspace(db, input.workspaceId);
    // The same account: the given platform user, or (without one) the same username, any case.
    const sameAccount = fields.platform_user_id
      ? eq(socialAccounts.platformUserId, fields.platform_user_id)
      : sql`lower(${socialAccounts.username}) = lower(${fields.username})`;
    const existing = await db
      .select()
      .from(socialAccounts)
      .where(
        and(eq(socialAccounts.workspaceId, workspace.id), eq(socialAccounts.platform, fields.platform), sameAccount),
      )
      .orderBy(desc(socialAccounts.connectedAt), desc(socialAccounts.id))
      .get();

    if (!existing?.isActive) await assertRoomForAnotherAccount(db, workspace);

    if (existing) {
      return toSocialAccountResource(
        await db
          .update(socialAccounts)
          .set({
            username: fields.username,
            displayName: fields.display_name === undefined ? existing.displayName : fields.display_name,
            status: 'active',
            connectedAt: now,
          })
          .where(eq(socialAccounts.id, existing.id))
          .returning()
          .get(),
        now,
      );
    }
    return toSocialAccountResource(
      await db
        .insert(socialAccounts)
        .values({
          id: newId(),
          workspaceId: workspace.id,
          platform: fields.platform,
          platformUserId: fields.platform_user_id ?? randomPlatformUserId(),
          username: fields.username,
          displayName: fields.display_name ?? null,
          mode: 'sandbox',
          status: 'active',
          scopes: [],
          connectedAt: now,
          createdAt: now,
        })
        .returning()
        .get(),
      now,
    );
  });
}

/**
 * The dashboard's disconnect: the row stays, inactive, so the list still shows it and a reconnect
 * reuses it. No event: the disconnection event comes only from the platforms' callbacks.
 */
export async function disconnectSocialAccount(runtime: Runtime, id: string): Promise<SocialAccountResource> {
  const row = await runtime.db
    .update(socialAccounts)
    .set({ status: 'disconnected' })
    .where(eq(socialAccounts.id, id))
    .returning()
    .get();
  if (!row) throw new ServiceError('not_found', `No social account with id ${id}.`);
  return toSocialAccountResource(row, runtime.clock.now());
}

/**
 * What a workspace has on one platform: its active account (the most recently connected if there
 * are several), else its most recently connected inactive one, else nothing. The publishing run
 * tells "no connected account" from "the account is inactive; reconnect it" with it.
 */
export type PlatformAccountLookup =
  { state: 'active'; account: AccountOfLookup } | { state: 'inactive'; account: AccountOfLookup } | { state: 'none' };

/** What a lookup reads of an account: who it posts as, never its tokens (the publishing run reads an item's accounts per item). */
export type AccountOfLookup = Pick<
  SocialAccountRow,
  'id' | 'workspaceId' | 'platform' | 'platformUserId' | 'username' | 'mode' | 'status' | 'isActive'
>;

/**
 * Every platform's lookup for one workspace from a single query: the publishing run resolves all of
 * an item's platforms at once. `platform` is any id a content item may target; an unknown one simply
 * has no account.
 */
export async function platformAccountsOf(
  db: Db,
  workspaceId: string,
): Promise<(platform: string) => PlatformAccountLookup> {
  const best = new Map<string, AccountOfLookup>();
  // Ordered best first (active, then latest connected), so the first row per platform wins.
  for (const row of await statements(db).accountsOfWorkspace.all({ workspaceId })) {
    if (!best.has(row.platform)) best.set(row.platform, row);
  }
  return (platform) => {
    const row = best.get(platform);
    if (!row) return { state: 'none' };
    return { state: row.isActive ? 'active' : 'inactive', account: row };
  };
}

/** The problem of a platform without a usable account (its code, the account, the sentence), or null when it has an active one. */
export function unavailableAccountProblem(platform: string, lookup: PlatformAccountLookup): PostProblem | null {
  switch (lookup.state) {
    case 'active':
      return null;
    case 'inactive': {
      const { username } = lookup.account;
      return lookup.account.status === 'needs_reconnect'
        ? {
            code: 'account_needs_reconnect',
            platform,
            username,
            message:
              `The ${platform} account @${username} must be reconnected: ${platform} no longer accepts its tokens. ` +
              `Connect it again (POST /api/v1/social-accounts/connect), then publish again.`,
          }
        : {
            code: 'account_inactive',
            platform,
            username,
            message: `The ${platform} account @${username} is inactive; reconnect it before publishing to ${platform}.`,
          };
    }
    case 'none':
      return {
        code: 'account_missing',
        platform,
        message: `No connected ${platform} account in this workspace; connect one before publishing to ${platform}.`,
      };
  }
}

/** The rejection text for a platform without a usable account, or null when it has an active one. */
export const unavailableAccountReason = (platform: string, lookup: PlatformAccountLookup): string | null =>
  unavailableAccountProblem(platform, lookup)?.message ?? null;

const statements = preparedStatements((db) => ({
  accountsOfWorkspace: db
    .select({
      id: socialAccounts.id,
      workspaceId: socialAccounts.workspaceId,
      platform: socialAccounts.platform,
      platformUserId: socialAccounts.platformUserId,
      username: socialAccounts.username,
      mode: socialAccounts.mode,
      status: socialAccounts.status,
      isActive: socialAccounts.isActive,
    })
    .from(socialAccounts)
    .where(eq(socialAccounts.workspaceId, sql.placeholder('workspaceId')))
    .orderBy(desc(socialAccounts.isActive), desc(socialAccounts.connectedAt), desc(socialAccounts.id))
    .prepare(),
}));

/**
 * Throws quota_exceeded when the workspace already has as many active accounts as its plan's
 * platforms_limit: one more (a new account, or an inactive one made active again) would pass it.
 */
export async function assertRoomForAnotherAccount(db: Db, workspace: Workspace): Promise<void> {
  const active = await countActiveAccounts(db, workspace.id);
  const limit = workspace.features.platforms_limit;
  if (active >= limit) {
    throw new ServiceError(
      'quota_exceeded',
      `The ${workspace.plan} plan allows ${limit} active social accounts (platforms_limit) and the workspace has ${active}; ` +
        'disconnect one or move to a larger plan first.',
    );
  }
}

/** The active accounts of a workspace, all platforms together: what platforms_limit caps. */
export async function countActiveAccounts(db: Db, workspaceId: string): Promise<number> {
  return (await db
    .select({ n: count() })
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, workspaceId), eq(socialAccounts.isActive, true)))
    .get())!.n;
}
