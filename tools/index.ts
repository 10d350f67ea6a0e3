import serviceCreateContent from './service_create_content.ts';
import serviceDeleteContent from './service_delete_content.ts';
import serviceGetAccount from './service_get_account.ts';
import serviceGetAnalytics from './service_get_analytics.ts';
import serviceGetBrandProfile from './service_get_brand_profile.ts';
import serviceGetContent from './service_get_content.ts';
import serviceListContent from './service_list_content.ts';
import serviceListSocialAccounts from './service_list_social_accounts.ts';
import serviceListWebhooks from './service_list_webhooks.ts';
import servicePublishContent from './service_publish_content.ts';
import serviceUpdateBrandProfile from './service_update_brand_profile.ts';
import serviceUpdateContent from './service_update_content.ts';
import type { ToolDescriptor } from './tool.ts';

export type { ToolDescriptor } from './tool.ts';

/** Every tool the MCP server exposes, in the order assistants see them. */
export const TOOLS: readonly ToolDescriptor[] = [
  serviceGetAccount,
  serviceGetBrandProfile,
  serviceUpdateBrandProfile,
  serviceListSocialAccounts,
  serviceListContent,
  serviceGetContent,
  serviceCreateContent,
  serviceUpdateContent,
  serviceDeleteContent,
  servicePublishContent,
  serviceGetAnalytics,
  serviceListWebhooks,
];
