import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { socialAccounts } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { notFound } from '../errors.ts';
import { defineOperation } from '../operation.ts';
import { listEnvelope } from '../pagination.ts';
import {
  accessRefusal,
  allowedActionsSchema,
  enforce,
  subjectOf,
  verdict,
  type PolicySubject,
  type Verdict,
} from '../policy.ts';
import { isOAuthPlatform, oauthApp, oauthProvider, PLATFORM_NAMES } from '../platforms/registry.ts';
import { beginConnection } from './connect-start.ts';
import { activePlatformsOf } from './connect-storage.ts';
import { countActiveAccounts, listSocialAccounts } from './operations.ts';
import { SocialAccountConnect, SocialAccountResource as SocialAccountResourceSchema } from './schemas.ts';
import { reconnectBy, type SocialAccountRow } from './serialize.ts';

/** What an admin does with a connected account: reconnect it (a new consent for the same account). */
export const SOCIAL_ACCOUNT_ACTIONS = ['reconnect'] as const;
export type SocialAccountAction = (typeof SOCIAL_ACCOUNT_ACTIONS)[number];

export type SocialAccountPolicyRow = Pick<
  SocialAccountRow,
  'platform' | 'mode' | 'status' | 'isActive' | 'refreshTokenEncrypted' | 'tokenExpiresAt'
>;

/** What the policy needs beyond the row: whether the platform's app is set up, and the plan's count. */
export interface SocialAccountFacts {
  oauthConfigured: (platform: SocialAccountRow['platform']) => boolean;
  activeAccounts: number;
  activeOnPlatform: (platform: SocialAccountRow['platform']) => boolean;
}

export const socialAccountFacts = async (
  runtime: Pick<Runtime, 'db' | 'config' | 'clock'>,
  workspaceId: string,
): Promise<SocialAccountFacts> => {
  const activePlatforms = await activePlatformsOf(runtime.db, workspaceId);
  return {
    oauthConfigured: (platform) =>
      oauthApp(runtime.config, platform) !== null && oauthProvider(runtime.config, runtime.clock, platform) !== null,
    activeAccounts: await countActiveAccounts(runtime.db, workspaceId),
    activeOnPlatform: (platform) => activePlatforms.has(platform),
  };
};

/**
 * Reconnecting: the plan, the write scope and an admin's role; a live account of an OAuth platform
 * whose app is configured, that needs it (not active, or a token that cannot be refreshed expiring
 * soon); and room under platforms_limit when the account would become active again beside no other
 * active account on its platform (as the connect flow counts it).
 */
export function judgeSocialAccountAction(
  subject: PolicySubject,
  row: SocialAccountPolicyRow,
  facts: SocialAccountFacts,
  action: SocialAccountAction,
): Verdict<SocialAccountAction> {
  const name = PLATFORM_NAMES[row.platform];
  const limit = subject.workspace.features.platforms_limit;
  return verdict(
    action,
    () => accessRefusal(subject, reconnectSocialAccount),
    () =>
      row.mode === 'live'
        ? null
        : { code: 'invalid_state', reason: 'A sandbox account has no platform consent to renew.' },
    () =>
      isOAuthPlatform(row.platform)
        ? null
        : {
            code: 'invalid_state',
            reason: `${name} accounts reconnect by connecting again with a new app password.`,
          },
    () =>
      row.status !== 'active' || reconnectBy(row as SocialAccountRow, subject.now) !== null
        ? null
        : { code: 'invalid_state', reason: 'The account is connected and its token is good: nothing to reconnect.' },
    () =>
      facts.oauthConfigured(row.platform)
        ? null
        : {
            code: 'platform_not_configured',
            reason: `${name} accounts cannot be connected: the service's ${name} app is not configured.`,
          },
    () =>
      row.isActive || facts.activeOnPlatform(row.platform) || facts.activeAccounts < limit
        ? null
        : {
            code: 'quota_exceeded',
            reason: `The ${subject.workspace.plan} plan allows ${limit} active social accounts (platforms_limit) and the workspace has ${facts.activeAccounts}; disconnect one or move to a larger plan first.`,
          },
  );
}

export const socialAccountPolicy = (
  subject: PolicySubject,
  row: SocialAccountPolicyRow,
  facts: SocialAccountFacts,
): Verdict<SocialAccountAction>[] =>
  SOCIAL_ACCOUNT_ACTIONS.map((action) => judgeSocialAccountAction(subject, row, facts, action));

async function accountInWorkspace(db: Runtime['db'], workspaceId: string, id: string): Promise<SocialAccountRow> {
  const row = await db
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, workspaceId), eq(socialAccounts.id, id)))
    .get();
  if (!row) throw notFound('social account');
  return row;
}

/**
 * The dashboard's Reconnect: the consent URL for the account's platform, bound to the signed-in
 * person's session, once the policy allows it. No REST route of its own: the contract's
 * POST /social-accounts/connect is how an API client reconnects.
 */
export const reconnectSocialAccount = defineOperation({
  name: 'reconnectSocialAccount',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: z.object({
    id: z.string().min(1),
    return_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    session_hash: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  output: SocialAccountConnect,
  errors: {
    invalid_state: 'the account is a sandbox one, connects with an app password, or needs no reconnect',
    platform_not_configured: "the service's OAuth app for the platform is not configured",
    quota_exceeded: "the plan's platforms_limit of active accounts is reached",
  },
  async run(ctx, input) {
    const row = await accountInWorkspace(ctx.db, ctx.workspace.id, input.id);
    enforce(
      judgeSocialAccountAction(subjectOf(ctx), row, await socialAccountFacts(ctx, ctx.workspace.id), 'reconnect'),
    );
    return (await beginConnection(
      ctx,
      { platform: row.platform, return_url: input.return_url },
      input.session_hash,
    )) as z.output<typeof SocialAccountConnect>;
  },
});

/** The accounts with each one's `allowed_actions`: what the dashboard's accounts page renders from. */
export const listSocialAccountsWithActions = defineOperation({
  name: 'listSocialAccountsWithActions',
  role: 'editor',
  buckets: ['read'],
  scope: 'read',
  input: z.object({}),
  output: listEnvelope(
    SocialAccountResourceSchema.extend({ allowed_actions: allowedActionsSchema(SOCIAL_ACCOUNT_ACTIONS) }),
  ),
  async run(ctx) {
    const subject = subjectOf(ctx);
    const facts = await socialAccountFacts(ctx, ctx.workspace.id);
    const rows = new Map(
      (await ctx.db.select().from(socialAccounts).where(eq(socialAccounts.workspaceId, ctx.workspace.id)).all()).map(
        (row) => [row.id, row],
      ),
    );
    const page = await listSocialAccounts.run(ctx, {});
    return {
      ...page,
      data: page.data.map((account) => ({
        ...account,
        allowed_actions: socialAccountPolicy(subject, rows.get(account.id)!, facts),
      })),
    };
  },
});
