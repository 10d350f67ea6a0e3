import { launchCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_launch_campaign',
  title: 'Launch a campaign',
  description:
    'Launches a draft or paused campaign (POST /api/v1/campaigns/{id}/launch): it becomes active, start_date is set to ' +
    "now, and its posts are generated in the background, one content item per calendar slot, in the brand profile's " +
    'voice, each pending_review and scheduled_for its slot. This consumes plan quota and AI credits (one credit per ' +
    'generated post; generation stops when credits run out): confirm with the user first. Answers at once with the ' +
    'campaign; follow generated_posts with service_get_campaign.',
  operation: launchCampaign,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotencyKey: true,
});
