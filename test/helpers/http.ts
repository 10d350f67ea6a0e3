import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { Runtime } from '../../src/core/context.ts';
import { createApp } from '../../src/app.ts';
import { makeWorkspace, type TestWorkspace } from './factories.ts';
import { nonConformance } from './openapi-conformance.ts';
import { testRuntime, type TestRuntime } from './runtime.ts';

export interface TestServer {
  url: string;
  close(): Promise<void>;
  /**
   * fetch against the server with a path relative to its root. Every answer is checked against the
   * OpenAPI document, and one that breaks it fails the request (and so the test that made it).
   */
  request(path: string, init?: RequestInit): Promise<Response>;
}

/** fetch, with the answer checked against the OpenAPI document: one that breaks it throws. */
export async function checkedFetch(url: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  const problem = await nonConformance((init?.method ?? 'GET').toUpperCase(), url, res);
  if (problem) throw new Error(problem);
  return res;
}

/** The real Express app on an ephemeral loopback port. */
export async function startTestServer(runtime: Runtime): Promise<TestServer> {
  const server = createApp(runtime).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    request: (path, init) => checkedFetch(url + path, init),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** JSON helper: method, path, optional body, headers; returns status, headers and parsed body. */
export async function call(
  server: TestServer,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await server.request(path, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  return readReply(res);
}

/** Status, headers and the body parsed as JSON (the text as it came when it is not JSON: a page, a file). */
export async function readReply(res: Response): Promise<{ status: number; headers: Headers; body: any }> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (an HTML page, a file); keep the text.
  }
  return { status: res.status, headers: res.headers, body };
}

/** What each test of a REST suite gets afresh: a runtime, its HTTP server, and a workspace with ready headers. */
export interface RestTestbed {
  runtime: TestRuntime;
  server: TestServer;
  ws: TestWorkspace;
  /** The runtime's `MEDIA_DIR`, a fresh temporary directory, when the suite asked for one. */
  mediaDir: string;
}

export interface TestbedOptions {
  env?: Record<string, string>;
  start?: string;
  /** Gives each test its own media directory (removed after it), for suites that store files. */
  media?: boolean;
}

/** Registers the hooks that set up a fresh testbed before each test of the suite and close it after. */
export function useRestTestbed({ media, ...options }: TestbedOptions = {}): RestTestbed {
  const bed = {} as RestTestbed;
  beforeEach(async () => {
    const env = { ...options.env };
    if (media) env.MEDIA_DIR = bed.mediaDir = mkdtempSync(join(tmpdir(), 'testbed-media-'));
    bed.runtime = await testRuntime({ ...options, env });
    bed.server = await startTestServer(bed.runtime);
    bed.ws = await makeWorkspace(bed.runtime);
  });
  afterEach(async () => {
    await bed.server.close();
    if (media) rmSync(bed.mediaDir, { recursive: true, force: true });
  });
  return bed;
}
