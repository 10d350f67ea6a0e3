import { launchCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_launch_campaign',
  title: 'Launch a campaign',
  description:
    'Launches a draft or paused campaign: it becomes active from now and generates one pending_review ' +
    "content item per calendar slot in the background, in the brand's voice. This consumes plan quota and " +
    'AI credits (one per post; generation stops when they run out): confirm with the user first. Follow ' +
    'generated_posts with service_get_campaign.',
  operation: launchCampaign,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotencyKey: true,
});
