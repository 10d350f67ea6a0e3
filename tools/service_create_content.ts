import { createContent } from '../src/core/content/operations.ts';
import { PLATFORMS } from '../src/core/platforms/registry.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_create_content',
  title: 'Create a content item',
  description:
    'Creates a content item (POST /api/v1/content). caption is required (1 to 4000 characters). content_type defaults to ' +
    'single_image; text_only needs no media, image and video types need media_urls (absolute URLs, from ' +
    'service_list_media). target_platforms takes platform ids of connected accounts (see service_list_social_accounts): ' +
    `${PLATFORMS.join(', ')}; a platform without an account only fails at publish time. hashtags go ` +
    'without the #. status defaults to draft; status scheduled needs scheduled_for (ISO 8601 with offset). Date-times ' +
    'must carry Z or an offset. Read the brand profile (service_get_brand_profile) first so the caption fits the brand.',
  operation: createContent,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotencyKey: true,
});
