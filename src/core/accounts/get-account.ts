import { z } from 'zod';
import { defineOperation } from '../operation.ts';
import { AccountResource } from './schemas.ts';
import { aiCreditsUsedIn, postsPublishedIn, usagePeriod } from './usage.ts';
import { isActiveStatus } from './workspaces.ts';

/** GET /api/v1/me: the account, its plan's features and this month's usage. */
export const getAccount = defineOperation({
  name: 'getAccount',
  buckets: ['read'],
  input: z.object({}),
  output: AccountResource,
  planChecks: false,
  run(ctx) {
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
        posts_published: postsPublishedIn(db, workspace.id, period),
        ai_credits_used: aiCreditsUsedIn(db, workspace.id, period),
        period_start: period.start.toISOString(),
        period_end: period.end.toISOString(),
      },
    };
  },
});
