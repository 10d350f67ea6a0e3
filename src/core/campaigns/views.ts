import { defineOperation } from '../operation.ts';
import { listEnvelope } from '../pagination.ts';
import { allowedActionsSchema, subjectOf } from '../policy.ts';
import { listCampaigns } from './operations.ts';
import { CAMPAIGN_ACTIONS, campaignFacts, campaignPolicy } from './policy.ts';
import { CampaignResource as CampaignResourceSchema, ListCampaignsInput } from './schemas.ts';

/**
 * The campaigns list with each campaign's `allowed_actions`: what the dashboard renders its buttons
 * from. No REST route or tool serves it (the contract's list has no such field).
 */
export const listCampaignsWithActions = defineOperation({
  name: 'listCampaignsWithActions',
  buckets: ['read'],
  scope: 'read',
  input: ListCampaignsInput,
  output: listEnvelope(CampaignResourceSchema.extend({ allowed_actions: allowedActionsSchema(CAMPAIGN_ACTIONS) })),
  async run(ctx, input) {
    const page = await listCampaigns.run(ctx, input);
    const subject = subjectOf(ctx);
    const facts = await campaignFacts(ctx.db, subject);
    return { ...page, data: page.data.map((c) => ({ ...c, allowed_actions: campaignPolicy(subject, c, facts) })) };
  },
});
