import { listMedia } from '../src/core/media/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_media',
  title: 'List media',
  description:
    'Lists the media library, newest first. Attach an asset to content by putting its url (not its id) in ' +
    'media_urls. Uploading has no tool.',
  operation: listMedia,
  annotations: READ_ONLY,
});
