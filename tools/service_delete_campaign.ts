import { deleteCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_delete_campaign',
  title: 'Delete a campaign',
  description:
    'Deletes a campaign for good and stops its generation; the items it generated stay, with campaign_id ' +
    'cleared. To keep it, set status paused or archived with service_update_campaign instead. Ask the ' +
    'user first.',
  operation: deleteCampaign,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
});
