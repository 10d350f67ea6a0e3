import { z } from 'zod';
import { dateTimeOutput } from '../dates.ts';

const counts = {
  published: z.int().min(0),
  failed: z.int().min(0),
};

/** GET /api/v1/analytics/overview: item counts in totals and daily, per-platform outcomes in platforms. */
export const AnalyticsOverviewResource = z
  .object({
    object: z.literal('analytics_overview'),
    days: z.int().min(1).describe("The days covered, after the cap at the plan's analytics_history_days."),
    period_start: dateTimeOutput,
    period_end: dateTimeOutput,
    totals: z.object(counts).describe('Items published (on at least one platform) or failed (on every one).'),
    platforms: z.array(z.object({ platform: z.string(), ...counts })).describe('Per-platform attempt outcomes.'),
    daily: z.array(z.object({ date: z.iso.date(), ...counts })).describe('One entry per UTC day, oldest first.'),
  })
  .meta({ id: 'AnalyticsOverview' });
