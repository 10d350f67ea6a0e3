import { listContent } from '../src/core/content/list.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_content',
  title: 'List content items',
  description:
    'Lists content items, newest first; q searches captions (ignoring case) and combines with the other filters. ' +
    'Use it to find ids for service_get_content, service_update_content and service_publish_content.',
  operation: listContent,
  annotations: READ_ONLY,
});
