import { updateCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_update_campaign',
  title: 'Update a campaign',
  description:
    'Changes a campaign (PATCH /api/v1/campaigns/{id}); send the id and only the fields to change. status sets the value ' +
    'directly (draft, active, paused, completed, archived) without the launch check and without starting generation: to ' +
    'start generating, use service_launch_campaign. Setting paused, completed or archived stops a generation under way. ' +
    'total_posts keeps the value computed at creation even when posts_per_day or campaign_length_days change.',
  operation: updateCampaign,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
