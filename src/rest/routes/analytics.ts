import type { Router } from 'express';
import { getAnalyticsOverview } from '../../core/analytics/overview.ts';
import type { Runtime } from '../../core/context.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

export const analyticsEndpoints = [
  operationEndpoint({
    method: 'get',
    path: '/analytics/overview',
    summary: 'Get the analytics overview',
    description:
      "Published and failed totals, per platform and per UTC day; days is capped at the plan's analytics_history_days.",
    operation: getAnalyticsOverview,
    input: 'query',
  }),
];

export const analyticsRoutes = (runtime: Runtime): Router => routerFor(runtime, analyticsEndpoints);
