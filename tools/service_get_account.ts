import { getAccount } from '../src/core/accounts/get-account.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_account',
  title: 'Get account and plan',
  description:
    "Returns the workspace's plan, its features and this month's usage. Call it when a tool answers " +
    'payment_required, plan_forbidden or quota_exceeded, or before planning many posts.',
  operation: getAccount,
  annotations: READ_ONLY,
});
