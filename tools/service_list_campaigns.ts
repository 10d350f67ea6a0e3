import { listCampaigns } from '../src/core/campaigns/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_campaigns',
  title: 'List campaigns',
  description:
    "Lists the workspace's campaigns, newest first (GET /api/v1/campaigns): name, status (draft, active, paused, " +
    'completed, archived), content_mix, posts_per_day, campaign_length_days, start_date, total_posts and generated_posts. ' +
    'There is no status filter: filter the pages yourself. Returns {object:"list", data, has_more, next_cursor}; while ' +
    'has_more is true, call again with cursor=next_cursor. Use it to find campaign ids for service_get_campaign, ' +
    'service_update_campaign, service_launch_campaign and service_delete_campaign.',
  operation: listCampaigns,
  annotations: READ_ONLY,
});
