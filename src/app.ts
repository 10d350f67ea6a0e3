import express, { type Express } from 'express';
import type { Config } from './core/config.ts';
import type { Runtime } from './core/context.ts';
import { ServiceError } from './core/errors.ts';
import { errorHandler } from './http/errors.ts';
import { hostCheck } from './http/host-check.ts';
import { startCampaignGeneration } from './jobs/campaign-generation.ts';
import { startMaintenance } from './jobs/maintenance.ts';
import { startPublishing } from './jobs/publish-run.ts';
import { startWebhookDelivery } from './jobs/webhook-delivery.ts';
import { viewDocuments } from './mcp/apps/views.ts';
import { mcpRoutes } from './mcp/http-door.ts';
import { serveMcpStdio } from './mcp/stdio.ts';
import { exposedTools } from './mcp/tool-selection.ts';
import { restRoutes } from './rest/app.ts';
import { createMetrics } from './rest/metrics.ts';
import { requestContext } from './rest/request-context.ts';
import { webRoutes } from './web/app.ts';

/**
 * The composition root: the one module that imports more than one door (the import-direction test
 * allows it and no other). It builds the HTTP app, REST beside MCP beside the dashboard, and starts
 * the schedulers; src/cli/main.ts owns the process (flags, listening, signals) and calls it.
 */

export { serveMcpStdio };

/**
 * The service over HTTP: REST (under /api/v1, with health, metrics, the OAuth pages and the error
 * reference), MCP at /mcp and /mcp/readonly, and the people's dashboard under /app. `processMetrics`
 * adds the process's own metrics to /metrics (the serving process's app, not a test's).
 */
export function createApp(runtime: Runtime, options: { processMetrics?: boolean } = {}): Express {
  const metrics = createMetrics(runtime, options);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Who the client is behind a reverse proxy (req.ip, req.protocol): off unless TRUST_PROXY names the proxy.
  app.set('trust proxy', runtime.config.trustProxy);
  app.use(requestContext(runtime.log, metrics.observeRequest));
  // Before every route: REST, /mcp, /metrics, the dashboard and the OAuth pages alike.
  app.use(hostCheck(runtime.config));
  app.use(restRoutes(runtime, metrics));
  app.use(mcpRoutes(runtime));
  app.use('/app', webRoutes(runtime));
  app.use((req) => {
    throw new ServiceError('not_found', `No route ${req.method} ${req.path}. The API lives under /api/v1.`);
  });
  // The one error translator of every door that answers with the API's envelope (REST and /mcp's gate).
  app.use(errorHandler(runtime.config.docsUrl, runtime.log));
  return app;
}

/**
 * Settles the process's MCP tool selection (SERVICE_TOOLS), throwing on a bad one: a serving process
 * calls it before it takes a port or shows a first key.
 */
export function checkToolSelection(config: Pick<Config, 'mcpTools'>): void {
  exposedTools(config.mcpTools);
}

/** Builds the MCP App views (esbuild) ahead of a host's first resources/read. */
export const buildMcpViews = (): Promise<unknown> => viewDocuments();

export interface Schedulers {
  stop(deadline: number): Promise<void>;
}

/**
 * The schedulers every serving process runs unless RUN_SCHEDULERS=false (`force`, the worker, runs
 * them anyway): claims are leased rows, so several processes on one database share the work safely.
 * Stopping follows each job's rule (leased-worker.ts): webhook attempts in flight are cut short and
 * handed back, publishing fan-outs are given until `deadline` (a platform call cut short would become
 * an unknown outcome), generation hands its campaigns back after the batch in hand.
 */
export function startSchedulers(runtime: Runtime, options: { force?: boolean } = {}): Schedulers {
  if (!runtime.config.runSchedulers && !options.force) return { stop: async () => {} };
  const maintenance = startMaintenance(runtime);
  const workers = {
    publishing: startPublishing(runtime),
    'webhook delivery': startWebhookDelivery(runtime),
    'campaign generation': startCampaignGeneration(runtime),
  };
  return {
    async stop(deadline) {
      maintenance.stop();
      await Promise.all(
        Object.entries(workers).map(async ([name, worker]) => {
          const left = await worker.stop(deadline);
          if (left > 0)
            runtime.log.warn(
              { job: name, items: left },
              `${name}: ${left} item(s) still in hand at the shutdown deadline; their leases will run out and another process takes them over`,
            );
        }),
      );
    },
  };
}
