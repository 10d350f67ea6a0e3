import { getAnalyticsOverview } from '../src/core/analytics/overview.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_analytics',
  title: 'Get publishing analytics',
  description:
    "Returns publishing figures for the last `days` UTC days. days is silently capped at the plan's " +
    "analytics_history_days: the answer's days, period_start and period_end give the window. totals and " +
    'daily count items published on at least one platform, or failed on every one; platforms counts ' +
    'attempts.',
  operation: getAnalyticsOverview,
  annotations: READ_ONLY,
});
