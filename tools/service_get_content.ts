import { getContent } from '../src/core/content/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_content',
  title: 'Get a content item',
  description:
    'Returns one content item by id (GET /api/v1/content/{id}), with its status, scheduled_for, published_at, ' +
    'publish_queued and publish_results (the latest per-platform outcome). Poll it after service_publish_content to ' +
    'learn whether the post went out: status becomes published, or returns to approved with an error per platform.',
  operation: getContent,
  annotations: READ_ONLY,
});
