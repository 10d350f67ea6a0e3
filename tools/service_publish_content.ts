import { publishContent } from '../src/core/content/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_publish_content',
  title: 'Publish a content item',
  description:
    "Queues a content item to publish to its target_platforms' live accounts. This posts publicly: " +
    'confirm with the user first. The item should be approved and carry media_urls its type needs. ' +
    'Poll service_get_content for the outcome. Check first with dry_run.',
  operation: publishContent,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotencyKey: true,
});
