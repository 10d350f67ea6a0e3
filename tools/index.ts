import serviceCreateCampaign from './service_create_campaign.ts';
import serviceCreateContent from './service_create_content.ts';
import serviceDeleteCampaign from './service_delete_campaign.ts';
import serviceDeleteContent from './service_delete_content.ts';
import serviceGetAccount from './service_get_account.ts';
import serviceGetAnalytics from './service_get_analytics.ts';
import serviceGetBrandProfile from './service_get_brand_profile.ts';
import serviceGetCampaign from './service_get_campaign.ts';
import serviceGetContent from './service_get_content.ts';
import serviceLaunchCampaign from './service_launch_campaign.ts';
import serviceListCampaigns from './service_list_campaigns.ts';
import serviceListContent from './service_list_content.ts';
import serviceListMedia from './service_list_media.ts';
import serviceListSocialAccounts from './service_list_social_accounts.ts';
import serviceListTemplates from './service_list_templates.ts';
import serviceListWebhooks from './service_list_webhooks.ts';
import servicePublishContent from './service_publish_content.ts';
import serviceUpdateBrandProfile from './service_update_brand_profile.ts';
import serviceUpdateCampaign from './service_update_campaign.ts';
import serviceUpdateContent from './service_update_content.ts';
import type { ToolDescriptor } from './tool.ts';

export type { ToolDescriptor } from './tool.ts';

/** Every tool the MCP server exposes, in the order assistants see them. */
export const TOOLS: readonly ToolDescriptor[] = [
  serviceGetAccount,
  serviceGetBrandProfile,
  serviceUpdateBrandProfile,
  serviceListSocialAccounts,
  serviceListMedia,
  serviceListContent,
  serviceGetContent,
  serviceCreateContent,
  serviceUpdateContent,
  serviceDeleteContent,
  servicePublishContent,
  serviceListCampaigns,
  serviceGetCampaign,
  serviceCreateCampaign,
  serviceUpdateCampaign,
  serviceDeleteCampaign,
  serviceLaunchCampaign,
  serviceGetAnalytics,
  serviceListWebhooks,
  serviceListTemplates,
];
