import { listSocialAccounts } from '../src/core/social-accounts/operations.ts';
import { platformIdList } from '../src/core/platforms/registry.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_social_accounts',
  title: 'List connected social accounts',
  description:
    'Lists every social account connected to the workspace, active and inactive (GET /api/v1/social-accounts): platform ' +
    `(${platformIdList()}), username, display_name, mode (sandbox or live), status (active, ` +
    'needs_reconnect or disconnected), is_active (true exactly when status is active), scopes, token_expires_at, ' +
    'reconnect_by, profile_url, connected_at. Call it before creating or publishing content: target_platforms must name ' +
    'platform ids that have an account with is_active true, or publishing to that platform fails. An account that is ' +
    'needs_reconnect or disconnected must be reconnected in the dashboard; no tool can connect one. A reconnect_by date ' +
    'means the account must be reconnected by then to keep publishing. Takes no arguments; returns {object:"list", data, ' +
    'has_more:false} with the whole set in one page, newest first.',
  operation: listSocialAccounts,
  annotations: READ_ONLY,
});
