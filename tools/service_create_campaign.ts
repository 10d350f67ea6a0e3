import { createCampaign } from '../src/core/campaigns/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_create_campaign',
  title: 'Create a campaign',
  description:
    'Creates a campaign as a draft (POST /api/v1/campaigns); nothing is generated until service_launch_campaign. name is ' +
    'required (1 to 160 characters). Defaults: posts_per_day 3 (1 to 50), campaign_length_days 7 (1 to 365), start_date ' +
    'tomorrow (the next UTC midnight), content_mix {} (every post a single image). content_mix weights content types by ' +
    'their camelCase engine names (ugc, slideshow, talkingHead, videoHookDemo, greenScreen, videoHook, carousel), such as ' +
    '{"carousel": 2, "ugc": 1}; weights need not sum to anything. total_posts is fixed now as posts_per_day x ' +
    'campaign_length_days and is not recomputed by later updates. Targeting is per content item: a campaign has no platforms.',
  operation: createCampaign,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotencyKey: true,
});
