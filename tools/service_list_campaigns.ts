import { listCampaigns } from '../src/core/campaigns/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_campaigns',
  title: 'List campaigns',
  description:
    'Lists the campaigns, newest first, with no status filter. Use it to find ids for the other campaign ' + 'tools.',
  operation: listCampaigns,
  annotations: READ_ONLY,
});
