import { inArray } from 'drizzle-orm';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { content, webhookDeliveries, webhookJobs, webhooks } from '../../db/schema/index.ts';
import { makeWebhook, makeWorkspace } from '../helpers/factories.ts';
import { connectAccounts } from '../helpers/publishing.ts';
import { testRuntime, TEST_ENCRYPTION_KEY } from '../helpers/runtime.ts';
import { runEntry, startEntry, tempDataDir, type RunningProcess } from '../helpers/subprocess.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const LISTENING = /Listening on (http:\/\/127\.0\.0\.1:\d+)/;
const CLIENTS = 16;

/**
 * Issue 7, graceful shutdown: SIGTERM while clients create and publish content, publishing fan-outs
 * are out at a slow platform and webhook attempts hang at their receiver. The process exits 0 within
 * 10 s; everything it acknowledged (a 2xx) is in the database as acknowledged; the fan-outs in hand
 * were finished, never left half-done; the webhook attempts in hand were handed back unrecorded.
 */
describe('serve shutting down under load (subprocess)', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('SIGTERM during load loses nothing that was acknowledged and exits 0 within 10 s', async () => {
    const data = tempDataDir('shutdown');
    const file = join(data.dir, 'service.db');
    const runtime = await testRuntime({
      file,
      start: new Date().toISOString(),
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    });
    runtime.clock.now = () => new Date();
    const receiver = await startReceiver();
    receiver.respondWith('hang');
    cleanups.push(
      () => data.remove(),
      async () => {
        await runtime.db.$store.close();
      },
      () => receiver.close(),
    );
    const ws = await makeWorkspace(runtime);
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    await makeWebhook(runtime, ws.workspace, { url: `${receiver.url}/hook`, events: ['content.created'] });

    const server: RunningProcess = startEntry(['serve'], {
      DATABASE_FILE: file,
      PORT: '0',
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // Longer than the whole shutdown: only cutting the attempts short lets the process exit in time.
      WEBHOOK_TIMEOUT_MS: '30000',
      // Each fan-out is out at the platform for a while, so some are in hand at the signal.
      SANDBOX_PUBLISH_DELAY_MS: 'twitter:400',
      RATE_LIMIT_WRITE: '1000000',
      RATE_LIMIT_PUBLISH: '1000000',
    });
    cleanups.push(() => server.stop());
    const [, url] = await server.waitForOutput(LISTENING, 45_000);

    const created = new Map<string, string>();
    const published = new Set<string>();
    let refused = 0;
    let stopped = false;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: ws.headers, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const client = async (n: number) => {
      for (let i = 0; !stopped; i++) {
        try {
          const caption = `client ${n} post ${i}`;
          const res = await post('/api/v1/content', {
            caption,
            content_type: 'text_only',
            target_platforms: ['twitter'],
          });
          if (res.status !== 201) throw new Error(`create answered ${res.status}`);
          created.set(res.body.id, caption);
          if (i % 4 !== 0) continue;
          const queued = await post(`/api/v1/content/${res.body.id}/publish`, {});
          if (queued.status !== 202) throw new Error(`publish answered ${queued.status}`);
          published.add(res.body.id);
        } catch {
          // Refused or cut off by the shutdown: not acknowledged, so nothing is owed.
          refused += 1;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));

    await receiver.waitForRequests(4, 20_000);
    while (published.size < 20) await new Promise((resolve) => setTimeout(resolve, 10));
    const signalled = Date.now();
    const code = await server.stop(20_000);
    const tookMs = Date.now() - signalled;
    stopped = true;
    await Promise.all(clients);

    expect(code, server.stdout() + server.stderr()).toBe(0);
    expect(tookMs).toBeLessThan(10_000);
    expect(server.stdout()).toMatch(/"msg":"Shut down cleanly"/);
    console.log(
      `shutdown test: ${created.size} creates and ${published.size} publishes acknowledged, ${refused} refused or cut off; exit after ${tookMs} ms`,
    );

    const rows = await runtime.db
      .select()
      .from(content)
      .where(inArray(content.id, [...created.keys()]))
      .all();
    expect(rows).toHaveLength(created.size);
    for (const row of rows) {
      expect(row.caption).toBe(created.get(row.id));
      if (published.has(row.id)) {
        // Queued and not yet taken, or published by a fan-out the shutdown let finish.
        expect(
          row.status === 'published' || (row.status === 'approved' && row.publishQueued),
          `${row.id} ${row.status}`,
        ).toBe(true);
      } else {
        expect(row.status).toBe('draft');
      }
    }
    expect(rows.filter((row) => row.status === 'published').length).toBeGreaterThan(0);
    // The attempts hanging at the receiver were handed back: still queued, nothing recorded, and the
    // subscription's lease given back so a restart sends them at once.
    const jobs = await runtime.db.select().from(webhookJobs).all();
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs.filter((job) => job.state !== 'queued' || job.attempts !== 0)).toEqual([]);
    expect(await runtime.db.select().from(webhookDeliveries).all()).toEqual([]);
    expect((await runtime.db.select().from(webhooks).all()).filter((hook) => hook.leaseToken !== null)).toEqual([]);
  }, 120_000);

  it('the stdio MCP server shuts down the same way when its stdin closes, the worker on SIGTERM', async () => {
    const data = tempDataDir('shutdown-stdio');
    cleanups.push(() => data.remove());
    const file = join(data.dir, 'service.db');
    const runtime = await testRuntime({ file });
    const ws = await makeWorkspace(runtime);
    await runtime.db.$store.close();
    const env = { DATABASE_FILE: file, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };

    // runEntry gives the child an empty stdin: the session ends at once.
    const stdio = await runEntry(['mcp'], { ...env, SERVICE_API_KEY: ws.apiKey });
    expect(stdio.code, stdio.stderr).toBe(0);
    expect(stdio.stdout).toBe('');
    expect(stdio.stderr).toMatch(/"msg":"stdin closed: shutting down"/);
    expect(stdio.stderr).toMatch(/"msg":"Shut down cleanly"/);

    const worker = startEntry(['worker'], env);
    cleanups.push(() => worker.stop());
    await worker.waitForOutput(/Worker running/);
    // At once: the signal handlers are in place before the process says it runs.
    expect(await worker.stop(), worker.stdout() + worker.stderr()).toBe(0);
    expect(worker.stdout()).toMatch(/"msg":"Shut down cleanly"/);
  }, 60_000);
});
