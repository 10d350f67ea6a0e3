import { getAccount } from '../src/core/accounts/get-account.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_account',
  title: 'Get account and plan',
  description:
    'Returns the workspace account (GET /api/v1/me): org_id, plan, plan_status, is_active, is_trialing, the plan features ' +
    "(posts_per_month, platforms_limit, api_access, monthly_ai_credits, analytics_history_days) and this month's usage " +
    '(posts_published, ai_credits_used). Call it first when another tool answers payment_required, plan_forbidden or ' +
    'quota_exceeded, or before planning many posts.',
  operation: getAccount,
  annotations: READ_ONLY,
});
