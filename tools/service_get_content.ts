import { getContent } from '../src/core/content/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_content',
  title: 'Get a content item',
  description:
    'Returns one content item. Poll it after service_publish_content: status becomes published, or goes ' +
    'back to approved with an error per platform in publish_results (publish_queued is true while it ' +
    'waits).',
  operation: getContent,
  annotations: READ_ONLY,
});
