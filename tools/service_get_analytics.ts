import { getAnalyticsOverview } from '../src/core/analytics/overview.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_analytics',
  title: 'Get publishing analytics',
  description:
    "Returns the workspace's publishing figures for the last `days` UTC calendar days, today included (GET " +
    "/api/v1/analytics/overview). days is 1 to 365, default 30, and is silently capped at the plan's " +
    'analytics_history_days (see service_get_account): read `days` in the response for the days actually covered, ' +
    'and period_start / period_end for the exact window. totals and daily count content items by the outcome of their ' +
    'publishing runs: published = went out on at least one platform, failed = rejected by every platform (an item ' +
    'counts once per outcome however often it was retried). platforms counts per-platform attempt outcomes instead ' +
    '(published, or failed: rejected or outcome unknown), listing only platforms with an attempt in the period. daily ' +
    'has one entry per day, oldest first, zeros included. To see why an item failed, read its publish_results with ' +
    'service_get_content.',
  operation: getAnalyticsOverview,
  annotations: READ_ONLY,
});
