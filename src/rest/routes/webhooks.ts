import { Router } from 'express';
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
import { fromBodyAndParams, fromParams, fromQuery, handle, route, type InputSource } from '../handle.ts';

/** The delivery log is paged by query, for the webhook in the path. */
const fromQueryAndParams: InputSource = (req) => ({ ...req.query, ...req.params });

export function webhookRoutes(runtime: Runtime): Router {
  const router = Router();
  route(router, '/webhooks', {
    get: handle(runtime, listWebhooks, fromQuery),
    post: handle(runtime, createWebhook, fromBodyAndParams, 201),
  });
  route(router, '/webhooks/:id', {
    get: handle(runtime, getWebhook, fromParams),
    patch: handle(runtime, updateWebhook, fromBodyAndParams),
    delete: handle(runtime, deleteWebhook, fromParams),
  });
  route(router, '/webhooks/:id/rotate', { post: handle(runtime, rotateWebhookSecret, fromParams) });
  route(router, '/webhooks/:id/test', { post: handle(runtime, testWebhook, fromParams) });
  route(router, '/webhooks/:id/deliveries', { get: handle(runtime, listWebhookDeliveries, fromQueryAndParams) });
  return router;
}
