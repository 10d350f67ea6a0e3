import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, checkedFetch, startTestServer, type TestServer } from '../helpers/http.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { childEnv } from '../helpers/subprocess.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LIMIT = 6;

/** Starts `serve` as a real second process and resolves with its base URL once it listens. */
function startServeProcess(env: Record<string, string>): { child: ChildProcess; ready: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const ready = new Promise<string>((resolveReady, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolveReady(match[1]);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) =>
      reject(new Error(`serve exited with ${code} before listening:\n${stdout}\n${stderr}`)),
    );
  });
  return { child, ready };
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Rate limits: the counters live in the database, so every process on one file shares
 * the workspace's budget. A real `serve` process and an in-process server share one database file.
 */
describe('REST rate limits across two processes on one database file', () => {
  let dir: string;
  let runtime: TestRuntime;
  let server: TestServer;
  let child: ChildProcess | undefined;
  let childUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rate-limits-'));
    const file = join(dir, 'service.db');
    runtime = await testRuntime({ file, env: { ...baseEnv, RATE_LIMIT_READ: String(LIMIT) } });
    server = await startTestServer(runtime);
    // A workspace exists before the child starts, so it creates no default one.
    await makeWorkspace(runtime);
    const started = startServeProcess({
      DATA_DIR: dir,
      DATABASE_FILE: file,
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: baseEnv.PUBLIC_BASE_URL,
      RATE_LIMIT_READ: String(LIMIT),
    });
    child = started.child;
    childUrl = await started.ready;
  });

  afterAll(async () => {
    if (child) await stopProcess(child);
    await server?.close();
    await runtime?.db.$store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const viaChild = async (ws: TestWorkspace) => {
    const res = await checkedFetch(`${childUrl}/api/v1/content`, { headers: ws.headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const viaTestServer = (ws: TestWorkspace) => call(server, 'GET', '/api/v1/content', { headers: ws.headers });
  const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
  const reset = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-reset'));

  it('the child sees workspaces and items written by this process', async () => {
    const ws = await makeWorkspace(runtime);
    const created = await call(server, 'POST', '/api/v1/content', {
      headers: ws.headers,
      body: { caption: 'from the test process' },
    });
    const res = await viaChild(ws);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
  });

  it('one workspace has one read budget, whichever process answers', async () => {
    // The child runs on the system clock. The test clock is set into the child's window, found from
    // its Reset header; if the wall-clock minute rolls over mid-sequence, a fresh workspace retries.
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const ws = await makeWorkspace(runtime);
      const first = await viaChild(ws);
      expect(first.status).toBe(200);
      expect(Number(first.headers.get('x-ratelimit-limit'))).toBe(LIMIT);
      const windowEnd = reset(first);
      runtime.clock.set((windowEnd - 60) * 1000);

      // child, test, child, test, child, test: the six the budget allows.
      const allowed = [first];
      for (let i = 1; i < LIMIT; i += 1) allowed.push(i % 2 === 1 ? await viaTestServer(ws) : await viaChild(ws));
      const refusedByTest = await viaTestServer(ws);
      const refusedByChild = await viaChild(ws);
      const childReplies = [...allowed.filter((_, i) => i % 2 === 0), refusedByChild];
      if (childReplies.some((r) => reset(r) !== windowEnd)) continue;

      expect(allowed.map((r) => r.status)).toEqual(Array(LIMIT).fill(200));
      expect(allowed.map(remaining)).toEqual([5, 4, 3, 2, 1, 0]);
      for (const refused of [refusedByTest, refusedByChild]) {
        expect(refused.status).toBe(429);
        expect(refused.body).toMatchObject({ object: 'error', type: 'rate_limit_exceeded' });
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(reset(refused)).toBe(windowEnd);
      }
      return;
    }
    throw new Error('the wall-clock minute rolled over in three attempts running');
  });

  it('another workspace on the same file keeps its own budget', async () => {
    const a = await makeWorkspace(runtime);
    const b = await makeWorkspace(runtime);
    for (let i = 0; i < LIMIT; i += 1) expect((await viaTestServer(a)).status).toBe(200);
    expect((await viaTestServer(a)).status).toBe(429);
    // b is fresh in any window, so the child's own clock does not matter here.
    const other = await viaChild(b);
    expect(other.status).toBe(200);
    expect(remaining(other)).toBe(LIMIT - 1);
  });
});
