import { Router } from 'express';
import type { Runtime } from '../core/context.ts';
import { metricsRoutes, type ServiceMetrics } from './metrics.ts';
import { openApiRoutes } from './openapi.ts';
import { accountRoutes } from './routes/account.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { brandProfileRoutes } from './routes/brand-profile.ts';
import { callbackRoutes } from './routes/callbacks.ts';
import { campaignRoutes } from './routes/campaigns.ts';
import { contentRoutes } from './routes/content.ts';
import { oauthFlowRoutes } from './routes/oauth-flow.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { socialAccountRoutes } from './routes/social-accounts.ts';
import { systemRoutes } from './routes/system.ts';
import { mediaRoutes } from './routes/media.ts';
import { templateRoutes } from './routes/templates.ts';
import { webhookRoutes } from './routes/webhooks.ts';

/**
 * The REST door: the API under /api/v1, health, metrics, the error reference and OpenAPI document,
 * the platforms' OAuth callbacks and the service's own OAuth authorization server (which MCP clients
 * use). Mounted at the root by the composition root (src/app.ts), beside /mcp and the dashboard.
 */
export function restRoutes(runtime: Runtime, metrics: ServiceMetrics): Router {
  const router = Router();
  router.use(systemRoutes(runtime));
  router.use(metricsRoutes(runtime, metrics));
  router.use(
    '/api/v1',
    contentRoutes(runtime),
    accountRoutes(runtime),
    brandProfileRoutes(runtime),
    socialAccountRoutes(runtime),
    analyticsRoutes(runtime),
    webhookRoutes(runtime),
    campaignRoutes(runtime),
    templateRoutes(runtime),
  );
  // Mounted at the root: uploads are also accepted at /media_assets (the contract's address), and file URLs are public.
  router.use(mediaRoutes(runtime));
  router.use(callbackRoutes(runtime));
  router.use(oauthRoutes(runtime));
  router.use(oauthFlowRoutes(runtime));
  router.use(openApiRoutes(runtime));
  return router;
}
