import { z } from 'zod';
import { CONTENT_TYPES } from '../../../db/schema/index.ts';
import { PLATFORMS } from '../platforms/registry.ts';
import { dateTimeInput, dateTimeOutput } from '../dates.ts';
import { paginationInput } from '../pagination.ts';
import { textViolations } from '../platforms/rules.ts';

/** A niche is a lowercase slug such as `fitness` or `real-estate`; matching is exact, after lowercasing. */
export const NICHE_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const NICHE_MAX = 40;

/**
 * GET /templates: the contract names limit and cursor; the three filters are ours. The platform filter is
 * named `source_platform`, like the field it matches (no `platform` alias: one name per thing). An
 * unknown platform or content type is refused (400, as the content list's filters are); a niche is
 * free text, so one that no template carries simply matches nothing.
 */
export const ListTemplatesInput = z.object({
  niche: z
    .string()
    .trim()
    .toLowerCase()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'Only templates tagged with this niche, exact match (case-insensitive), such as fitness, saas or real-estate.',
    ),
  source_platform: z.enum(PLATFORMS).optional().describe('Only templates that performed on this platform.'),
  content_type: z.enum(CONTENT_TYPES).optional().describe('Only templates of this content type.'),
  ...paginationInput,
});

const text = (max: number) => z.string().trim().min(1).max(max);
const count = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

/** (likes + comments + shares + saves) / views, rounded to 4 decimals; 0 when there are no views. */
export function engagementRate(e: {
  views: number;
  likes: number;
  comments: number;
  shares: number;
  saves: number;
}): number {
  if (e.views === 0) return 0;
  return Math.round(((e.likes + e.comments + e.shares + e.saves) / e.views) * 10_000) / 10_000;
}

/**
 * One library entry as the seed file and `admin import-templates` give it: the resource shape
 * without `object` (tolerated when it says "template", so a page of GET /templates can be fed back).
 * `id` is required, since it is what makes an import re-runnable; `created_at` defaults to now;
 * `engagement_rate` may be left out and is always computed, and a given one must agree.
 */
export const TemplateEntry = z
  .strictObject({
    id: z.uuid('id must be a UUID; it is what makes re-importing the same file update instead of duplicate.'),
    object: z.literal('template').optional(),
    name: text(160),
    description: text(1000),
    source_platform: z.enum(PLATFORMS),
    content_type: z.enum(CONTENT_TYPES),
    structure: z.strictObject({ hook: text(500), body: text(2000), call_to_action: text(500) }),
    example_caption: text(63_206),
    engagement: z.strictObject({
      views: count,
      likes: count,
      comments: count,
      shares: count,
      saves: count,
      engagement_rate: z.number().min(0).optional(),
    }),
    niches: z
      .array(
        z
          .string()
          .trim()
          .toLowerCase()
          .max(NICHE_MAX)
          .regex(NICHE_PATTERN, 'A niche is a lowercase slug such as real-estate.'),
      )
      .min(1)
      .max(10)
      .refine((niches) => new Set(niches).size === niches.length, 'Niches must not repeat.'),
    created_at: dateTimeInput.optional(),
  })
  .superRefine((entry, ctx) => {
    for (const problem of textViolations(entry.source_platform, entry.example_caption)) {
      ctx.addIssue({
        code: 'custom',
        path: ['example_caption'],
        message: `The example caption must fit ${entry.source_platform}: ${problem}.`,
      });
    }
    const given = entry.engagement.engagement_rate;
    const computed = engagementRate(entry.engagement);
    if (given !== undefined && Math.abs(given - computed) > 0.00005) {
      ctx.addIssue({
        code: 'custom',
        path: ['engagement', 'engagement_rate'],
        message: `engagement_rate is (likes + comments + shares + saves) / views, rounded to 4 decimals: ${computed}, not ${given}.`,
      });
    }
  });

export type TemplateEntry = z.output<typeof TemplateEntry>;

/** A whole import file: a JSON array of entries, each id once. */
export const TemplateEntries = z
  .array(TemplateEntry)
  .min(1, 'The file holds no templates.')
  .max(10_000)
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((entry, index) => {
      if (seen.has(entry.id))
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `id ${entry.id} appears more than once.` });
      seen.add(entry.id);
    });
  });

/** The template resource: an approved entry of the shared library. */
export const TemplateResource = z
  .object({
    id: z.uuid(),
    object: z.literal('template'),
    name: z.string(),
    description: z.string(),
    source_platform: z.enum(PLATFORMS),
    content_type: z.enum(CONTENT_TYPES),
    structure: z.object({ hook: z.string(), body: z.string(), call_to_action: z.string() }),
    example_caption: z.string(),
    engagement: z.object({
      views: z.int(),
      likes: z.int(),
      comments: z.int(),
      shares: z.int(),
      saves: z.int(),
      engagement_rate: z.number().describe('(likes + comments + shares + saves) / views, 4 decimals.'),
    }),
    niches: z.array(z.string()),
    created_at: dateTimeOutput,
  })
  .meta({ id: 'Template' });
