import { publishContent } from '../src/core/content/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_publish_content',
  title: 'Publish a content item',
  description:
    'Queues a content item for publishing to the live social accounts of its target_platforms ' +
    '(POST /api/v1/content/{id}/publish). This posts publicly: confirm with the user first. The item should be approved ' +
    '(service_update_content status approved) and carry media_urls when its content_type needs media. Omitting ' +
    'scheduled_for publishes immediately (the next publishing run, within seconds); a future scheduled_for (ISO 8601 with ' +
    'offset) schedules it. The answer only confirms the queue (publish_queued true); poll service_get_content for ' +
    'status published or the per-platform errors in publish_results. dry_run true changes nothing and answers a ' +
    'publish_preview instead: ready, and per target platform the account and the problems that would refuse it; ' +
    'check it before publishing.',
  operation: publishContent,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotencyKey: true,
});
