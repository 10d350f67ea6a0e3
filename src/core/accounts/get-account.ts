import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { workspaces } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../context.ts';
import { fieldError, ServiceError } from '../errors.ts';
import { defineOperation } from '../operation.ts';
import { isTimeZone } from '../time-zones.ts';
import { AccountResource, UpdateAccountInput } from './schemas.ts';
import { storageUsedBytes } from '../media/quota.ts';
import { aiCreditsUsedIn, postsPublishedIn, usagePeriod } from './usage.ts';
import { isActiveStatus } from './workspaces.ts';

/** GET /api/v1/me: the account, its plan's features and this month's usage. */
export const getAccount = defineOperation({
  name: 'getAccount',
  buckets: ['read'],
  scope: 'read',
  input: z.object({}),
  output: AccountResource,
  planChecks: false,
  run: async (ctx) => accountOf(ctx),
});

async function accountOf(ctx: ServiceContext) {
  {
    const { workspace, db } = ctx;
    const period = usagePeriod(ctx.clock.now());
    return {
      object: 'account' as const,
      workspace_id: workspace.id,
      org_id: workspace.orgId,
      name: workspace.name,
      plan: workspace.plan,
      plan_status: workspace.planStatus,
      is_active: isActiveStatus(workspace.planStatus),
      is_trialing: workspace.planStatus === 'trialing',
      features: workspace.features,
      usage: {
        posts_published: await postsPublishedIn(db, workspace.id, period),
        ai_credits_used: await aiCreditsUsedIn(db, workspace.id, period),
        period_start: period.start.toISOString(),
        period_end: period.end.toISOString(),
        storage_used_bytes: await storageUsedBytes(db, workspace.id),
        storage_limit_bytes: workspace.storageLimitBytes,
      },
      timezone: workspace.timezone,
      approver_must_differ: workspace.approverMustDiffer,
      default_language: workspace.defaultLanguage,
    };
  }
}

/** PATCH /api/v1/me: the workspace's settings (an API key or an admin). */
export const updateAccount = defineOperation({
  name: 'updateAccount',
  buckets: ['write'],
  scope: 'write',
  role: 'admin',
  input: UpdateAccountInput,
  output: AccountResource,
  planChecks: false,
  errors: { no_updates: 'the call changes no setting' },
  async run(ctx, input) {
    if (
      input.timezone === undefined &&
      input.approver_must_differ === undefined &&
      input.default_language === undefined
    ) {
      throw new ServiceError('no_updates', 'Send at least one of timezone, approver_must_differ, default_language.');
    }
    if (input.timezone !== undefined && !isTimeZone(input.timezone)) {
      throw fieldError(
        'timezone',
        `Unknown time zone "${input.timezone}": give an IANA name such as Europe/Paris or UTC.`,
      );
    }
    await ctx.db
      .update(workspaces)
      .set({
        timezone: input.timezone,
        approverMustDiffer: input.approver_must_differ,
        defaultLanguage: input.default_language,
      })
      .where(eq(workspaces.id, ctx.workspace.id))
      .run();
    const timezone = input.timezone ?? ctx.workspace.timezone;
    const approverMustDiffer = input.approver_must_differ ?? ctx.workspace.approverMustDiffer;
    const defaultLanguage =
      input.default_language === undefined ? ctx.workspace.defaultLanguage : input.default_language;
    return accountOf({ ...ctx, workspace: { ...ctx.workspace, timezone, approverMustDiffer, defaultLanguage } });
  },
});
