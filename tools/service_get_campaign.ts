import { getCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_campaign',
  title: 'Get a campaign',
  description:
    'Reads one campaign. After a launch, generated_posts rises towards total_posts; the generated items ' +
    'are content with this campaign_id, pending_review. An active campaign ' +
    'completes by itself once every post is generated and each is published, rejected, deleted or failed.',
  operation: getCampaign,
  annotations: READ_ONLY,
});
