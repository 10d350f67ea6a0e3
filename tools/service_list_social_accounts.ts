import { listSocialAccounts } from '../src/core/social-accounts/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_social_accounts',
  title: 'List connected social accounts',
  description:
    'Lists the connected social accounts, active or not, in one page. Call it before creating or ' +
    'publishing: target_platforms need an account with is_active true. needs_reconnect or disconnected ' +
    'accounts must be reconnected in the dashboard (no tool can), and by reconnect_by to keep publishing.',
  operation: listSocialAccounts,
  annotations: READ_ONLY,
});
