import { getCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_campaign',
  title: 'Get a campaign',
  description:
    'Reads one campaign by id (GET /api/v1/campaigns/{id}). After a launch, generated_posts rises towards total_posts as ' +
    'the drafts are written; the generated items are content with this campaign_id, status pending_review, each ' +
    'scheduled_for its slot (find them with service_list_content status=pending_review). Once every post is generated and ' +
    'each is published, rejected, deleted or failed to publish, the campaign becomes completed by itself.',
  operation: getCampaign,
  annotations: READ_ONLY,
});
