import { Router } from 'express';
import { getAnalyticsOverview } from '../../core/analytics/overview.ts';
import type { Runtime } from '../../core/context.ts';
import { fromQuery, handle, route } from '../handle.ts';

export function analyticsRoutes(runtime: Runtime): Router {
  const router = Router();
  route(router, '/analytics/overview', { get: handle(runtime, getAnalyticsOverview, fromQuery) });
  return router;
}
