import { updateCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_update_campaign',
  title: 'Update a campaign',
  description:
    'Changes a campaign: send the id and only the fields to change. To start generating, use ' +
    'service_launch_campaign. total_posts keeps its value from creation.',
  operation: updateCampaign,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
