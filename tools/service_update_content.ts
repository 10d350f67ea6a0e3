import { updateContent } from '../src/core/content/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_update_content',
  title: 'Update a content item',
  description:
    'Changes a content item: send the id and only the fields to change. Deleting is final; status ' +
    'rejected keeps an item for later. status scheduled needs a scheduled_for, in the call or already ' +
    'set.',
  operation: updateContent,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
