import { listContent } from '../src/core/content/list.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_content',
  title: 'List content items',
  description:
    'Lists content items, newest first; q searches captions. ' + 'It gives the ids the other content tools take.',
  operation: listContent,
  annotations: READ_ONLY,
});
