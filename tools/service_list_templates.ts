import { listTemplates } from '../src/core/templates/operations.ts';
import { PLATFORMS } from '../src/core/platforms/registry.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_templates',
  title: 'List post templates',
  description:
    'Lists the shared templates library, newest first (GET /api/v1/templates): proven post formats that performed well, the ' +
    'same for every workspace and read-only. Each template has name, description, source_platform (where it performed), ' +
    'content_type, structure {hook, body, call_to_action}, example_caption, engagement (views, likes, comments, shares, ' +
    "saves, engagement_rate) and niches. When drafting, pick templates matching the brand's niche and target platform, " +
    "follow the structure (open with a hook like the template's, then the body, end with its kind of call to action) in " +
    "the brand's own voice and topics, and use example_caption only as a model of length and rhythm, never copy it. " +
    `Filters: niche (exact, such as fitness, food, saas, real-estate), source_platform (${PLATFORMS.join(', ')}), ` +
    'content_type. Returns {object:"list", data, has_more, next_cursor}; while has_more is true, call ' +
    'again with cursor=next_cursor and the same filters.',
  operation: listTemplates,
  annotations: READ_ONLY,
});
