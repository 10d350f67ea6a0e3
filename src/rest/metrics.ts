import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PLATFORMS } from '../core/platforms/registry.ts';
import type { Runtime } from '../core/context.ts';
import { ServiceError } from '../core/errors.ts';
import { publishQueueStats } from '../core/publishing/claim.ts';
import { deliveryQueueStats } from '../core/webhooks/queue-stats.ts';

/** What GET /metrics shows for one runtime, in its own registry (never prom-client's global one). */
export interface ServiceMetrics {
  registry: Registry;
  /** Counts one answered request under its route pattern (never its raw path). */
  observeRequest(request: { method: string; route: string; status: number; seconds: number }): void;
}

/** From 1 ms to 10 s: a REST request answers in a few ms; a synchronous webhook test may take its 10 s deadline. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The service's metrics. The queue gauges are read from the database at scrape time, so every
 * process on one database shows the same queues; the counters count what this process did.
 * `processMetrics` adds prom-client's default process and Node.js metrics (once per process: they
 * watch the event loop and the GC).
 */
export function createMetrics(runtime: Runtime, options: { processMetrics?: boolean } = {}): ServiceMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its answer, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });

  new Gauge({
    name: 'publish_queue_depth',
    help: 'Publishing queue: items due and not claimed (state="due"), items being published (state="in_flight").',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const stats = await publishQueueStats(runtime);
      this.set({ state: 'due' }, stats.due);
      this.set({ state: 'in_flight' }, stats.inFlight);
    },
  });
  new Gauge({
    name: 'publish_queue_oldest_age_seconds',
    help: 'Publishing queue: how long the oldest due item has waited (state="due"), how long ago the oldest item in flight was claimed (state="in_flight"); 0 when none.',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const stats = await publishQueueStats(runtime);
      this.set({ state: 'due' }, stats.oldestDueAgeSeconds);
      this.set({ state: 'in_flight' }, stats.oldestInFlightAgeSeconds);
    },
  });
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook delivery queue: jobs due (state="due"), waiting for a retry or a re-enable (state="waiting"), being attempted (state="in_flight").',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const stats = await deliveryQueueStats(runtime);
      this.set({ state: 'due' }, stats.due);
      this.set({ state: 'waiting' }, stats.waiting);
      this.set({ state: 'in_flight' }, stats.inFlight);
    },
  });
  new Gauge({
    name: 'webhook_queue_oldest_due_age_seconds',
    help: 'Webhook delivery queue: how long the oldest due job has been due; 0 when none.',
    registers,
    async collect() {
      this.set((await deliveryQueueStats(runtime)).oldestDueAgeSeconds);
    },
  });

  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this process, by delivery-log status.',
    labelNames: ['status'] as const,
    registers,
  });
  const platformCalls = new Counter({
    name: 'publish_platform_calls_total',
    help: 'Platform calls made by this process publishing, by platform and result (unknown: no answer in time).',
    labelNames: ['platform', 'result'] as const,
    registers,
  });
  const runs = new Counter({
    name: 'publish_runs_total',
    help: 'Publishing runs finished by this process: published (at least one platform accepted) or failed.',
    labelNames: ['result'] as const,
    registers,
  });
  // Every series shown from the start, at 0, so a rate over it exists before the first event.
  for (const status of ['delivered', 'pending_retry', 'failed']) deliveries.inc({ status }, 0);
  for (const platform of PLATFORMS)
    for (const result of ['published', 'rejected', 'unknown']) platformCalls.inc({ platform, result }, 0);
  for (const result of ['published', 'failed']) runs.inc({ result }, 0);

  runtime.outcomes.listen((outcome) => {
    switch (outcome.kind) {
      case 'webhook_delivery':
        deliveries.inc({ status: outcome.status });
        break;
      case 'platform_call':
        platformCalls.inc({ platform: outcome.platform, result: outcome.result });
        break;
      case 'publish_run':
        runs.inc({ result: outcome.result });
        break;
    }
  });

  return {
    registry,
    observeRequest({ method, route, status, seconds }) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
  };
}

/**
 * GET /metrics in the Prometheus text format. Open on the service's port unless METRICS_TOKEN is
 * set; then it takes `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time).
 */
export function metricsRoutes(runtime: Runtime, metrics: ServiceMetrics): Router {
  const router = Router();
  const token = runtime.config.metricsToken;
  const expected = token === null ? null : digest(`Bearer ${token}`);
  router.get('/metrics', async (req, res) => {
    if (expected !== null && !timingSafeEqual(digest(req.get('authorization') ?? ''), expected)) {
      throw new ServiceError('invalid_key', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
    }
    const body = await metrics.registry.metrics();
    res.type(metrics.registry.contentType).send(body);
  });
  return router;
}

/** Equal-length inputs for timingSafeEqual, whatever the header's length. */
const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
