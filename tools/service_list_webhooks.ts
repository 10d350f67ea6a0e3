import { listWebhooks } from '../src/core/webhooks/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_webhooks',
  title: 'List webhook subscriptions',
  description:
    'Lists every webhook subscription of the workspace (GET /api/v1/webhooks): id (whk_…), the url deliveries are ' +
    'POSTed to, events (the subscribed event names; an empty array means every event), is_enabled and auto_disabled_at. ' +
    'Use it to tell the user where content and campaign events are sent. A subscription with is_enabled false and an ' +
    'auto_disabled_at time was switched off after five failed deliveries within an hour; its events keep queuing and are ' +
    'sent once it is re-enabled through the REST API (PATCH /api/v1/webhooks/{id} with is_enabled true), which no tool ' +
    'does. signing_secret is always null here: the secret is shown only when a webhook is created or its secret rotated. ' +
    'Takes no arguments; returns {object:"list", data, has_more:false, next_cursor:null} with the whole set, newest first.',
  operation: listWebhooks,
  annotations: READ_ONLY,
});
