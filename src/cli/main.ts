#!/usr/bin/env node
import { createServer } from 'node:http';
import { startBackgroundCheckpoints } from '../../db/checkpointer.ts';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.ts';
import { ensureDefaultWorkspace } from '../core/accounts/workspaces.ts';
import type { Runtime } from '../core/context.ts';
import { openRuntime } from '../core/runtime.ts';
import { serveMcpStdio } from '../mcp/stdio.ts';
import { exposedTools } from '../mcp/tool-selection.ts';
import { createApp } from '../rest/app.ts';
import { startMaintenance } from '../jobs/maintenance.ts';
import { generatorsFor } from '../core/campaigns/generators/index.ts';
import { startCampaignGeneration } from '../jobs/campaign-generation.ts';
import { startPublishing } from '../jobs/publish-run.ts';
import { startWebhookDelivery } from '../jobs/webhook-delivery.ts';
import { runAdmin } from './admin.ts';

/** One entry, four commands: `serve` (REST + /mcp + schedulers), `mcp` (stdio), `worker` (schedulers only), `admin`. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      applyServingFlags(command, rest);
      await serve(openRuntime());
      return -1;
    case 'mcp': {
      // stdout is the protocol channel: route console.log to stderr before anything can print.
      console.log = console.error;
      applyServingFlags(command, rest);
      const runtime = openRuntime();
      startBackgroundCheckpoints(runtime.db);
      startSchedulers(runtime);
      await serveMcpStdio(runtime, process.env.SERVICE_API_KEY);
      return -1;
    }
    case 'worker': {
      const runtime = openRuntime();
      const checkpointer = startBackgroundCheckpoints(runtime.db);
      const schedulers = startSchedulers(runtime, { force: true });
      // The schedulers' timers are unref'd (they must not keep `serve` or `mcp` alive); a worker has
      // no server or stdin, so this keeps it running until a signal.
      const keepAlive = setInterval(() => {}, 1 << 30);
      console.log('Worker running the schedulers (publishing, webhook delivery, campaign generation, maintenance).');
      onShutdown(runtime, async () => {
        clearInterval(keepAlive);
        await schedulers.stop();
        await checkpointer.stop();
        runtime.db.$client.close();
      });
      return -1;
    }
    case 'admin': {
      const runtime = openRuntime();
      try {
        return runAdmin(runtime, rest);
      } finally {
        runtime.db.$client.close();
      }
    }
    default:
      console.error('Usage: main.ts serve [--read-only] | mcp [--read-only] | worker | admin <command>');
      return 2;
  }
}

/**
 * `serve` and `mcp` take one flag, `--read-only`, shorthand for SERVICE_READ_ONLY=true. It goes into
 * the environment the configuration is read from, so every read of it (serve reads it again once
 * the port is known) sees the same value.
 */
function applyServingFlags(command: string, args: string[]): void {
  let readOnly: boolean | undefined;
  try {
    ({ 'read-only': readOnly } = parseArgs({ args, options: { 'read-only': { type: 'boolean' } }, strict: true }).values);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nUsage: main.ts ${command} [--read-only]`, { cause: error });
  }
  if (readOnly) process.env.SERVICE_READ_ONLY = 'true';
}

async function serve(opened: Runtime): Promise<void> {
  // /mcp settles its tools when the app is built, after listening; a bad selection must stop
  // start-up before a port is taken or a first API key is shown.
  exposedTools(opened.config.mcpTools);
  const created = ensureDefaultWorkspace(opened);
  if (created) {
    console.log(`Created workspace "${created.workspace.name}" (${created.workspace.id}).`);
    console.log(`API key (shown once, keep it safe): ${created.apiKey}`);
  }
  const checkpointer = startBackgroundCheckpoints(opened.db);
  const server = createServer();
  const { host, port } = opened.config;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;
  // PORT=0 picks a free port: the derived public URL (docs_url, the allowed /mcp origin) must name it.
  const config = actualPort === port ? opened.config : loadConfig({ ...process.env, PORT: String(actualPort) });
  const runtime: Runtime = { ...opened, config };
  server.on('request', createApp(runtime));
  const schedulers = startSchedulers(runtime);
  console.log(`Listening on http://${host.includes(':') ? `[${host}]` : host}:${actualPort} (REST /api/v1, MCP /mcp); public URL ${config.publicBaseUrl}`);

  onShutdown(runtime, async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await schedulers.stop();
    await checkpointer.stop();
    runtime.db.$client.close();
  });
}

/**
 * The schedulers every serving process runs unless RUN_SCHEDULERS=false (DECISIONS.md, Processes):
 * claims are leased rows, so several processes on one database share the work safely.
 */
function startSchedulers(runtime: Runtime, options: { force?: boolean } = {}): { stop(): Promise<void> } {
  if (!runtime.config.runSchedulers && !options.force) return { stop: async () => {} };
  const maintenance = startMaintenance(runtime);
  const workers = [startPublishing(runtime), startWebhookDelivery(runtime), startCampaignGeneration(runtime, generatorsFor(runtime))];
  return {
    async stop() {
      maintenance.stop();
      await Promise.all(workers.map((worker) => worker.stop()));
    },
  };
}

/**
 * On SIGINT or SIGTERM: stop taking work, let work in hand finish, then exit. The grace period
 * outlasts a platform call's deadline: cutting one short would turn a real outcome into an unknown.
 */
function onShutdown(runtime: Runtime, close: () => Promise<void>): void {
  const graceMs = (runtime.config.publishing.platformTimeoutSeconds + 5) * 1000;
  const shutdown = (signal: string) => {
    console.log(`${signal}: shutting down.`);
    setTimeout(() => process.exit(0), graceMs).unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
