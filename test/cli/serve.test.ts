import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../helpers/runtime.ts';
import { runEntry, startEntry, tempDataDir, type RunningProcess } from '../helpers/subprocess.ts';

const SLOW = 90_000;
const KEY_LINE = /API key \(shown once[^\n]*?(np_live_[0-9A-Za-z]+)/;
const LISTENING = /Listening on (http:\/\/127\.0\.0\.1:(\d+))/;

/** `npm start`: the first start on an empty data directory bootstraps a workspace and shows its key once. */
describe('serve bootstrap (subprocess)', () => {
  const data = tempDataDir('serve');
  const running: RunningProcess[] = [];
  const start = () => {
    const proc = startEntry(['serve'], { DATA_DIR: data.dir, PORT: '0', HOST: '127.0.0.1' });
    running.push(proc);
    return proc;
  };
  afterAll(async () => {
    for (const proc of running) await proc.stop();
    data.remove();
  });

  it(
    'prints a key once on a fresh data directory, serves /healthz and /api/v1/me with it, and prints none on the next start',
    async () => {
      const first = start();
      const [, url, port] = await first.waitForOutput(LISTENING, 45_000);
      expect(Number(port)).toBeGreaterThan(0);
      const key = first.stdout().match(KEY_LINE)?.[1];
      expect(key, first.stdout()).toMatch(/^np_live_[0-9A-Za-z]{32,}$/);
      expect(first.stdout().split(key!).length - 1).toBe(1);
      // Beside the key, the one way in for the first person: the setup link on the public URL.
      const setup = first.stdout().match(/Dashboard setup: (\S+)/)?.[1];
      expect(setup, first.stdout()).toMatch(new RegExp(`^${url}/app/setup\\?token=[A-Za-z0-9_-]{43}$`));
      // A plain line for the person at the terminal, never inside a JSON log line, even once it is opened.
      expect((await fetch(setup!)).status).toBe(200);
      const setupToken = new URL(setup!).searchParams.get('token')!;

      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', engine: TEST_ENGINE, database: 'ok' });
      const me = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ object: 'account', plan: 'pro', plan_status: 'active' });
      expect((await fetch(`${url}/api/v1/me`)).status).toBe(401);

      expect(await first.stop()).toBe(0);
      const jsonLines = first
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      expect(jsonLines.some((line) => line.includes('"msg":"request"'))).toBe(true);
      expect(jsonLines.filter((line) => line.includes(setupToken))).toEqual([]);

      const second = start();
      const [, secondUrl] = await second.waitForOutput(LISTENING, 45_000);
      expect(second.stdout()).not.toMatch(/API key|Dashboard setup/);
      expect(second.stdout()).not.toMatch(/np_live_/);
      const again = await fetch(`${secondUrl}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(again.status).toBe(200);
      expect(await second.stop()).toBe(0);
    },
    SLOW,
  );
});

/** A first start that cannot listen must not spend the key: the next start that listens shows it. */
describe('serve on a port already taken (subprocess)', () => {
  const data = tempDataDir('serve-port-taken');
  const running: RunningProcess[] = [];
  afterAll(async () => {
    for (const proc of running) await proc.stop();
    data.remove();
  });

  it(
    'exits non-zero with one plain line naming PORT, and the next start on a free port prints the key',
    async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const port = (taken.address() as AddressInfo).port;
      try {
        const failed = await runEntry(['serve'], { DATA_DIR: data.dir, PORT: String(port), HOST: '127.0.0.1' }, 45_000);
        expect(failed.code, failed.stdout + failed.stderr).not.toBe(0);
        expect(failed.signal).toBeNull();
        expect(failed.stderr.trim()).toBe(`Port ${port} is already in use: set PORT to a free port.`);
        expect(failed.stdout).not.toMatch(/API key|np_live_|Created workspace/);
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }

      const next = startEntry(['serve'], { DATA_DIR: data.dir, PORT: '0', HOST: '127.0.0.1' });
      running.push(next);
      const [, url] = await next.waitForOutput(LISTENING, 45_000);
      const key = next.stdout().match(KEY_LINE)?.[1];
      expect(key, next.stdout()).toMatch(/^np_live_[0-9A-Za-z]{32,}$/);
      const me = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(me.status).toBe(200);
      expect(await next.stop()).toBe(0);
    },
    SLOW,
  );
});
