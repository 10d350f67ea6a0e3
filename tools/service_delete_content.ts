import { deleteContent } from '../src/core/content/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_delete_content',
  title: 'Delete (archive) a content item',
  description:
    'Archives a content item: it leaves every list and can never be restored or changed. To keep it for ' +
    'later, set status rejected with service_update_content instead. Ask the user first.',
  operation: deleteContent,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
});
