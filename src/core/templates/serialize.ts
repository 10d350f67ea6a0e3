import type { z } from 'zod';
import type { templates } from '../../../db/schema/index.ts';
import type { TemplateResource as TemplateResourceSchema } from './schemas.ts';

/** The resource as its schema describes it: the serializer must produce exactly this. */
export type TemplateResource = z.output<typeof TemplateResourceSchema>;

export type TemplateRow = typeof templates.$inferSelect;

/** The template resource: an approved entry of the shared library. */
export function toTemplateResource(row: TemplateRow): TemplateResource {
  return {
    id: row.id,
    object: 'template' as const,
    name: row.name,
    description: row.description,
    source_platform: row.sourcePlatform,
    content_type: row.contentType,
    structure: {
      hook: row.structure.hook,
      body: row.structure.body,
      call_to_action: row.structure.call_to_action,
    },
    example_caption: row.exampleCaption,
    engagement: {
      views: row.engagement.views,
      likes: row.engagement.likes,
      comments: row.engagement.comments,
      shares: row.engagement.shares,
      saves: row.engagement.saves,
      engagement_rate: row.engagement.engagement_rate,
    },
    niches: row.niches,
    created_at: row.createdAt.toISOString(),
  };
}
