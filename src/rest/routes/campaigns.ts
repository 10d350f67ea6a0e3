import type { Router } from 'express';
import {
  createCampaign,
  deleteCampaign,
  getCampaign,
  launchCampaign,
  listCampaigns,
  updateCampaign,
} from '../../core/campaigns/operations.ts';
import type { Runtime } from '../../core/context.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

export const campaignEndpoints = [
  operationEndpoint({
    method: 'get',
    path: '/campaigns',
    summary: 'List campaigns',
    description: 'Newest first; no status filter (filter client-side).',
    operation: listCampaigns,
    input: 'query',
  }),
  operationEndpoint({
    method: 'post',
    path: '/campaigns',
    summary: 'Create a campaign',
    description:
      'A draft plan: creating a campaign creates no posts. total_posts is posts_per_day x campaign_length_days.',
    operation: createCampaign,
    input: 'body',
    status: 201,
  }),
  operationEndpoint({
    method: 'get',
    path: '/campaigns/:id',
    summary: 'Get a campaign',
    operation: getCampaign,
    input: 'path',
  }),
  operationEndpoint({
    method: 'patch',
    path: '/campaigns/:id',
    summary: 'Update a campaign',
    description: 'A status is set as given, without the launch check, and starts no generation.',
    operation: updateCampaign,
    input: 'body',
  }),
  operationEndpoint({
    method: 'delete',
    path: '/campaigns/:id',
    summary: 'Delete a campaign',
    description: 'The items it generated stay, with campaign_id cleared; no webhook fires.',
    operation: deleteCampaign,
    input: 'path',
  }),
  operationEndpoint({
    method: 'post',
    path: '/campaigns/:id/launch',
    summary: 'Launch a campaign',
    description:
      'No body. From draft or paused only: status active, start_date now, campaign.launched; content generation then runs in the ' +
      'background, one AI credit per generated post. Once every post is generated and each is published, rejected, deleted or ' +
      'failed to publish, the campaign becomes completed by itself, with campaign.completed.',
    operation: launchCampaign,
    input: 'path',
    status: 202,
  }),
];

export const campaignRoutes = (runtime: Runtime): Router => routerFor(runtime, campaignEndpoints);
