import express, { type Express } from 'express';
import type { Runtime } from '../core/context.ts';
import { ServiceError } from '../core/errors.ts';
import { errorHandler } from './errors.ts';
import { hostCheck } from './host-check.ts';
import { createMetrics, metricsRoutes, type ServiceMetrics } from './metrics.ts';
import { openApiRoutes } from './openapi.ts';
import { requestContext } from './request-context.ts';
import { accountRoutes } from './routes/account.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { brandProfileRoutes } from './routes/brand-profile.ts';
import { callbackRoutes } from './routes/callbacks.ts';
import { campaignRoutes } from './routes/campaigns.ts';
import { contentRoutes } from './routes/content.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { oauthFlowRoutes } from './routes/oauth-flow.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { socialAccountRoutes } from './routes/social-accounts.ts';
import { systemRoutes } from './routes/system.ts';
import { mediaRoutes } from './routes/media.ts';
import { templateRoutes } from './routes/templates.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { webRoutes } from '../web/app.ts';

/**
 * The HTTP face of the service: REST under /api/v1, MCP at /mcp (with its OAuth discovery and client
 * registration), health, metrics and the error reference. `metrics` is the process's (main.ts); a test app gets its own.
 */
export function createApp(runtime: Runtime, metrics: ServiceMetrics = createMetrics(runtime)): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Who the client is behind a reverse proxy (req.ip, req.protocol): off unless TRUST_PROXY names the proxy.
  app.set('trust proxy', runtime.config.trustProxy);
  app.use(requestContext(runtime.log, metrics.observeRequest));
  // Before every route: REST, /mcp, /metrics, the dashboard and the OAuth pages alike.
  app.use(hostCheck(runtime.config));
  app.use(systemRoutes(runtime));
  app.use(metricsRoutes(runtime, metrics));
  app.use(
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
  app.use(mediaRoutes(runtime));
  app.use(mcpRoutes(runtime));
  app.use(callbackRoutes(runtime));
  app.use(oauthRoutes(runtime));
  app.use(oauthFlowRoutes(runtime));
  app.use(openApiRoutes(runtime));
  // The people's dashboard: its own door, beside the API (src/web).
  app.use('/app', webRoutes(runtime));
  app.use((req) => {
    throw new ServiceError('not_found', `No route ${req.method} ${req.path}. The API lives under /api/v1.`);
  });
  app.use(errorHandler(runtime.config.docsUrl, runtime.log));
  return app;
}
