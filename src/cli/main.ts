#!/usr/bin/env node
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { startBackgroundCheckpoints, type Checkpointer } from '../../db/checkpointer.ts';
import { ensureDefaultWorkspace } from '../core/accounts/workspaces.ts';
import { issueSetupLink, linkUrl } from '../core/people/users.ts';
import { loadConfig } from '../core/config.ts';
import type { Runtime } from '../core/context.ts';
import { createLogger } from '../core/log.ts';
import { openRuntime } from '../core/runtime.ts';
import { buildMcpViews, checkToolSelection, createApp, serveMcpStdio, startSchedulers } from '../app.ts';
import { runAdmin } from './admin.ts';

/** From SIGTERM or SIGINT to exit, at most (issue 7): past it the process exits 1. */
const SHUTDOWN_BUDGET_MS = 10_000;
/** Kept back from the budget for the last checkpoint and closing the database. */
const CLOSE_RESERVE_MS = 2_500;

/** One entry, four commands: `serve` (REST + /mcp + schedulers), `mcp` (stdio), `worker` (schedulers only), `admin`. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      applyServingFlags(command, rest);
      await serve();
      return -1;
    case 'mcp':
      applyServingFlags(command, rest);
      await serveStdio();
      return -1;
    case 'worker':
      await runWorker();
      return -1;
    case 'admin': {
      // stdout carries the command's answer (JSON with --json): log lines, if any, go to stderr.
      const config = loadConfig();
      const runtime = await openRuntime({ config, log: createLogger({ level: config.logLevel, destination: 2 }) });
      try {
        return await runAdmin(runtime, rest);
      } finally {
        await runtime.db.$store.close();
      }
    }
    default:
      console.error('Usage: main.ts serve | mcp | worker | admin <command>');
      return 2;
  }
}

/** A serving process's runtime: its one logger writes JSON lines to `logTo` (1 stdout, 2 stderr). */
async function openProcessRuntime(logTo: 1 | 2): Promise<{ runtime: Runtime; checkpointer: Checkpointer }> {
  const config = loadConfig();
  const runtime = await openRuntime({ config, log: createLogger({ level: config.logLevel, destination: logTo }) });
  const checkpointer = startBackgroundCheckpoints(runtime.db, undefined, (message, error) =>
    runtime.log.error({ err: error }, message),
  );
  return { runtime, checkpointer };
}

/**
 * `serve` and `mcp` take one flag, `--read-only`, shorthand for SERVICE_READ_ONLY=true. It goes into
 * the environment the configuration is read from, so every read of it (serve reads it again once
 * the port is known) sees the same value.
 */
function applyServingFlags(command: string, args: string[]): void {
  let readOnly: boolean | undefined;
  try {
    ({ 'read-only': readOnly } = parseArgs({
      args,
      options: { 'read-only': { type: 'boolean' } },
      strict: true,
    }).values);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nUsage: main.ts ${command} [--read-only]`, { cause: error });
  }
  if (readOnly) process.env.SERVICE_READ_ONLY = 'true';
}

async function serve(): Promise<void> {
  const { runtime: opened, checkpointer } = await openProcessRuntime(1);
  // /mcp settles its tools when the app is built, after listening; a bad selection must stop
  // start-up before a port is taken or a first API key is shown.
  checkToolSelection(opened.config);
  const server = createServer();
  const { host, port } = opened.config;
  await listenOrExplain(server, port, host);
  // Only once the port is ours: a start that cannot listen must leave the first start's key to the
  // next one, not print a key for a server that never ran.
  const created = await ensureDefaultWorkspace(opened);
  const actualPort = (server.address() as AddressInfo).port;
  // PORT=0 picks a free port: the derived public URL (docs_url, the allowed /mcp origin) must name it.
  const config = actualPort === port ? opened.config : loadConfig({ ...process.env, PORT: String(actualPort) });
  const runtime: Runtime = { ...opened, config };
  if (created) {
    // Plain lines, not JSON: a person reads the key off the terminal on the first start (docs/operations.md).
    console.log(`Created workspace "${created.workspace.name}" (${created.workspace.id}).`);
    console.log(`API key (shown once, keep it safe): ${created.apiKey}`);
    // The one way in for the first person: no open registration (works once, within 24 hours).
    console.log(`Dashboard setup: ${linkUrl(runtime, await issueSetupLink(runtime, created.workspace.id))}`);
  }
  server.on('request', createApp(runtime, { processMetrics: true }));
  const schedulers = startSchedulers(runtime);
  // Built now (esbuild, in the background), so a host's first resources/read of a view does not wait.
  buildMcpViews().catch((error: unknown) => runtime.log.error({ err: error }, 'MCP App views could not be built'));
  // Before announcing it: whoever waits for the line may signal at once.
  onShutdown(runtime, checkpointer, (deadline) =>
    Promise.all([closeServer(server, deadline), schedulers.stop(deadline)]),
  );
  runtime.log.info(
    `Listening on http://${host.includes(':') ? `[${host}]` : host}:${actualPort} (REST /api/v1, MCP /mcp, dashboard /app, metrics /metrics); public URL ${config.publicBaseUrl}`,
  );
  // Out now rather than with the next buffer: whoever started the process waits for this line.
  runtime.log.flush();
}

/**
 * Listens, or fails with one plain line naming the setting to change (main prints an error's message
 * alone): a port in use or not allowed is the operator's to fix, not a crash to debug.
 */
async function listenOrExplain(server: Server, port: number, host: string): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    const explained = {
      EADDRINUSE: `Port ${port} is already in use: set PORT to a free port.`,
      EACCES: `Port ${port} needs privileges this process lacks: set PORT to 1024 or above.`,
      EADDRNOTAVAIL: `Host ${host} is not an address of this machine: set HOST to one of its addresses.`,
    }[(error as NodeJS.ErrnoException).code ?? ''];
    throw explained ? new Error(explained, { cause: error }) : error;
  }
}

async function serveStdio(): Promise<void> {
  // stdout is the protocol channel: logs go to stderr, and so does any stray console.log.
  console.log = console.error;
  const { runtime, checkpointer } = await openProcessRuntime(2);
  const schedulers = startSchedulers(runtime);
  const server = await serveMcpStdio(runtime, process.env.SERVICE_API_KEY);
  const shutdown = onShutdown(runtime, checkpointer, async (deadline) => {
    await schedulers.stop(deadline);
    await server.close();
  });
  // The client closing our stdin is its way of ending the session.
  process.stdin.once('end', () => shutdown('stdin closed'));
}

async function runWorker(): Promise<void> {
  const { runtime, checkpointer } = await openProcessRuntime(1);
  const schedulers = startSchedulers(runtime, { force: true });
  // The schedulers' timers are unref'd (they must not keep `serve` or `mcp` alive); a worker has
  // no server or stdin, so this keeps it running until a signal.
  const keepAlive = setInterval(() => {}, 1 << 30);
  onShutdown(runtime, checkpointer, async (deadline) => {
    clearInterval(keepAlive);
    await schedulers.stop(deadline);
  });
  runtime.log.info('Worker running the schedulers (publishing, webhook delivery, campaign generation, maintenance).');
  runtime.log.flush();
}

/**
 * Stops taking connections and answers the requests in hand. A keep-alive connection is closed as
 * soon as it is idle rather than at its timeout; at `deadline` any still open are cut.
 */
function closeServer(server: Server, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cutOff = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()));
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cutOff);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * On SIGINT or SIGTERM (or `shutdown()` called): stop taking work, finish or hand back the work in
 * hand (`stopWork`, given a deadline), checkpoint and close the database, exit 0, all within
 * SHUTDOWN_BUDGET_MS; past it, or when shutting down fails, exit 1. A second signal exits at once.
 */
function onShutdown(
  runtime: Runtime,
  checkpointer: Checkpointer,
  stopWork: (deadline: number) => Promise<unknown>,
): (reason: string) => void {
  const { log } = runtime;
  let started = false;
  const shutdown = (reason: string) => {
    if (started) return;
    started = true;
    const begun = Date.now();
    log.info({ reason }, `${reason}: shutting down`);
    setTimeout(() => {
      log.error(`Shutdown did not finish within ${SHUTDOWN_BUDGET_MS} ms; exiting`);
      process.exit(1);
    }, SHUTDOWN_BUDGET_MS - 250).unref();
    (async () => {
      await stopWork(begun + SHUTDOWN_BUDGET_MS - CLOSE_RESERVE_MS);
      await checkpointer.stop();
      await runtime.db.$store.close();
    })().then(
      () => {
        log.info({ duration_ms: Date.now() - begun }, 'Shut down cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'Shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (!started) return shutdown(signal);
      log.warn(`${signal} again: exiting without finishing the shutdown`);
      process.exit(1);
    });
  }
  return shutdown;
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
