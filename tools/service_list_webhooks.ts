import { listWebhooks } from '../src/core/webhooks/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_webhooks',
  title: 'List webhook subscriptions',
  description:
    'Lists the webhook subscriptions, in one page. is_enabled false with auto_disabled_at: switched off ' +
    'after five failed deliveries within an hour; events queue until it is re-enabled over REST (no tool ' +
    'does). signing_secret is always null here: it is shown only at creation or rotation.',
  operation: listWebhooks,
  annotations: READ_ONLY,
});
