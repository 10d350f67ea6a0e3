import { listContent } from '../src/core/content/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_content',
  title: 'List content items',
  description:
    "Lists the workspace's content items, newest first (GET /api/v1/content). Filter by status (draft, pending_review, " +
    'approved, scheduled, rejected, archived, publishing, published) and content_type. Archived items appear only when ' +
    'status=archived is asked for. Returns {object:"list", data, has_more, next_cursor}; while has_more is true, call again ' +
    'with cursor=next_cursor and the same filters. Use it to find item ids for service_get_content, ' +
    'service_update_content and service_publish_content.',
  operation: listContent,
  annotations: READ_ONLY,
});
