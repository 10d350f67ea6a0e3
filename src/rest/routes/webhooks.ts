import type { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from '../../core/webhooks/operations.ts';
import { resendDelivery, resendFailedDeliveries } from '../../core/webhooks/resend.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

export const webhookEndpoints = [
  operationEndpoint({
    method: 'get',
    path: '/webhooks',
    summary: 'List webhooks',
    description: 'Not paginated: the full set in one page (has_more false); limit and cursor are ignored.',
    operation: listWebhooks,
    input: 'query',
  }),
  operationEndpoint({
    method: 'post',
    path: '/webhooks',
    summary: 'Create a webhook',
    description:
      'The answer carries the signing secret, this once. The URL must be absolute http(s) on a public address.',
    operation: createWebhook,
    input: 'body',
    status: 201,
  }),
  operationEndpoint({
    method: 'get',
    path: '/webhooks/:id',
    summary: 'Get a webhook',
    description: 'signing_secret is null.',
    operation: getWebhook,
    input: 'path',
  }),
  operationEndpoint({
    method: 'patch',
    path: '/webhooks/:id',
    summary: 'Update a webhook',
    description:
      'is_enabled true resumes an auto-disabled webhook (clears auto_disabled_at); queued deliveries resume oldest first.',
    operation: updateWebhook,
    input: 'body',
  }),
  operationEndpoint({
    method: 'delete',
    path: '/webhooks/:id',
    summary: 'Delete a webhook',
    description: 'Its queued deliveries and its delivery log go with it.',
    operation: deleteWebhook,
    input: 'path',
  }),
  operationEndpoint({
    method: 'post',
    path: '/webhooks/:id/rotate',
    summary: 'Rotate the signing secret',
    description: 'The new secret replaces the old at once; the answer carries it, this once.',
    operation: rotateWebhookSecret,
    input: 'path',
  }),
  operationEndpoint({
    method: 'post',
    path: '/webhooks/:id/test',
    summary: 'Send a test delivery',
    description: 'One synchronous, signed webhook.test delivery (also while disabled), logged, never retried.',
    operation: testWebhook,
    input: 'path',
  }),
  operationEndpoint({
    method: 'get',
    path: '/webhooks/:id/deliveries',
    summary: 'List delivery attempts',
    description: 'The delivery log, one row per attempt, most recent first; status filters by outcome.',
    operation: listWebhookDeliveries,
    input: 'query',
  }),
  operationEndpoint({
    method: 'post',
    path: '/webhooks/:id/deliveries/:delivery_id/resend',
    summary: 'Resend a delivery',
    description:
      "Queues the attempt's event again for this webhook (enabled only), delivered under the same event id " +
      '(webhook-id header) from attempt 1. Test deliveries and events already queued are refused with invalid_state.',
    operation: resendDelivery,
    input: 'path',
  }),
  operationEndpoint({
    method: 'post',
    path: '/webhooks/:id/resend-failed',
    summary: 'Resend the failed deliveries of a time range',
    description:
      'Queues again every event whose delivery failed for good (a failed attempt, tests aside) in [since, until), ' +
      'unless queued now or delivered since; oldest first, at most 1,000 per call (has_more). The range is at most ' +
      '31 days. The webhook must be enabled: after an auto-disable, enable it first (PATCH is_enabled true).',
    operation: resendFailedDeliveries,
    input: 'body',
  }),
];

export const webhookRoutes = (runtime: Runtime): Router => routerFor(runtime, webhookEndpoints);
