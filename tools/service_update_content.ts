import { updateContent } from '../src/core/content/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_update_content',
  title: 'Update a content item',
  description:
    'Changes fields of a content item (PATCH /api/v1/content/{id}); send id plus only the fields to change. status accepts ' +
    'draft, pending_review, approved, scheduled or rejected: approved makes the item eligible to publish, rejected keeps it ' +
    'for later (deleting is final). status scheduled needs a scheduled_for, in the call or already set.',
  operation: updateContent,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
