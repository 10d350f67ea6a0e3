import { Router } from 'express';
import {
  createCampaign,
  deleteCampaign,
  getCampaign,
  launchCampaign,
  listCampaigns,
  updateCampaign,
} from '../../core/campaigns/operations.ts';
import type { Runtime } from '../../core/context.ts';
import { fromBodyAndParams, fromParams, fromQuery, handle, route } from '../handle.ts';

export function campaignRoutes(runtime: Runtime): Router {
  const router = Router();
  route(router, '/campaigns', {
    get: handle(runtime, listCampaigns, fromQuery),
    post: handle(runtime, createCampaign, fromBodyAndParams, 201),
  });
  route(router, '/campaigns/:id', {
    get: handle(runtime, getCampaign, fromParams),
    patch: handle(runtime, updateCampaign, fromBodyAndParams),
    delete: handle(runtime, deleteCampaign, fromParams),
  });
  // SPEC.md: no body; 202, generation goes on in the background.
  route(router, '/campaigns/:id/launch', { post: handle(runtime, launchCampaign, fromParams, 202) });
  return router;
}
