#!/usr/bin/env node
import type { Server } from 'node:http';
import { ensureDefaultWorkspace } from '../core/accounts/workspaces.ts';
import type { Runtime } from '../core/context.ts';
import { openRuntime } from '../core/runtime.ts';
import { serveMcpStdio } from '../mcp/stdio.ts';
import { createApp } from '../rest/app.ts';
import { runAdmin } from './admin.ts';

/** One entry, three commands: `serve` (REST + /mcp + schedulers), `mcp` (stdio), `admin`. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await serve(openRuntime());
      return -1;
    case 'mcp': {
      // stdout is the protocol channel: route console.log to stderr before anything can print.
      console.log = console.error;
      await serveMcpStdio(openRuntime(), process.env.SERVICE_API_KEY);
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
      console.error('Usage: main.ts serve | mcp | admin <command>');
      return 2;
  }
}

async function serve(runtime: Runtime): Promise<void> {
  const created = ensureDefaultWorkspace(runtime);
  if (created) {
    console.log(`Created workspace "${created.workspace.name}" (${created.workspace.id}).`);
    console.log(`API key (shown once, keep it safe): ${created.apiKey}`);
  }
  const app = createApp(runtime);
  const { host, port, publicBaseUrl } = runtime.config;
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  console.log(`Listening on http://${host.includes(':') ? `[${host}]` : host}:${actualPort} (REST /api/v1, MCP /mcp); public URL ${publicBaseUrl}`);

  const shutdown = (signal: string) => {
    console.log(`${signal}: shutting down.`);
    server.close(() => {
      runtime.db.$client.close();
      process.exit(0);
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 5000).unref();
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
