import { deleteCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_delete_campaign',
  title: 'Delete a campaign',
  description:
    'Deletes a campaign for good (DELETE /api/v1/campaigns/{id}) and stops its generation. The content items it ' +
    'generated stay, with campaign_id cleared. No webhook event fires. To keep the campaign but stop it, use ' +
    'service_update_campaign with status paused or archived instead. Ask the user before deleting. Answers ' +
    '{id, object:"campaign", deleted:true}.',
  operation: deleteCampaign,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
});
