import { createContent } from '../src/core/content/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_create_content',
  title: 'Create a content item',
  description:
    'Creates a content item. Read the brand profile first so the caption fits. Image and video types need ' +
    'media_urls (from service_list_media); text_only needs none. For target_platforms, see ' +
    'service_list_social_accounts.',
  operation: createContent,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotencyKey: true,
});
