import { deleteContent } from '../src/core/content/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_delete_content',
  title: 'Delete (archive) a content item',
  description:
    'Archives a content item (DELETE /api/v1/content/{id}): it leaves every list and can never be restored or changed ' +
    'again. If the item may be wanted back, use service_update_content with status rejected instead. Ask the user before ' +
    'deleting. Answers {id, object:"content", deleted:true}.',
  operation: deleteContent,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
});
