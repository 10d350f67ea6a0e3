import { createCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_create_campaign',
  title: 'Create a campaign',
  description:
    'Creates a draft campaign; nothing is generated until service_launch_campaign. total_posts is fixed ' +
    'now as posts_per_day x campaign_length_days. A campaign has no platforms: targeting is per content item.',
  operation: createCampaign,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotencyKey: true,
});
