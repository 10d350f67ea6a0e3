import { listMedia } from '../src/core/media/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_media',
  title: 'List media',
  description:
    "Lists the workspace's media library, newest first (GET /api/v1/media-library): each asset has id, url (absolute, " +
    'public), asset_type (image or video), mime_type, size_bytes, width, height (null for video), tags and filename. ' +
    'Pass asset_type to get only images or only videos. Returns {object:"list", data, has_more, next_cursor}; while ' +
    'has_more is true, call again with cursor=next_cursor. Attach media to content by putting asset urls in media_urls ' +
    '(service_create_content, service_update_content); content attaches media by URL, not by asset id. Files are ' +
    'uploaded with POST /media_assets (multipart), which has no tool.',
  operation: listMedia,
  annotations: READ_ONLY,
});
