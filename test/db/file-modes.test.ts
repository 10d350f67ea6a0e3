import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startBackgroundCheckpoints } from '../../db/checkpointer.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { Runtime } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { runAdminCaptured } from '../helpers/admin-cli.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { TEST_ENCRYPTION_KEY } from '../helpers/runtime.ts';

/** The permission bits of a file or directory, as `ls -l` would show them in octal. */
const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8).padStart(3, '0');

let root: string;
const opened: Runtime[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'file-modes-'));
});
afterEach(async () => {
  for (const runtime of opened.splice(0)) await runtime.db.$store.close();
  rmSync(root, { recursive: true, force: true });
});

/** The service's runtime on DATA_DIR, as `serve` opens it. */
async function openService(dataDir: string): Promise<Runtime> {
  const runtime = await openRuntime({ config: loadConfig({ DATA_DIR: dataDir, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }) });
  opened.push(runtime);
  return runtime;
}

it('creates the data directory 0700 and service.db, its -wal and its -shm 0600', async () => {
  const dataDir = join(root, 'fresh', 'data');
  const runtime = await openService(dataDir);
  const file = join(dataDir, 'service.db');
  expect(modeOf(dataDir)).toBe('700');
  expect(modeOf(file)).toBe('600');
  await makeWorkspace(runtime);
  expect(existsSync(`${file}-wal`)).toBe(true);
  expect(existsSync(`${file}-shm`)).toBe(true);
  expect(modeOf(`${file}-wal`)).toBe('600');
  expect(modeOf(`${file}-shm`)).toBe('600');
});

it('keeps the WAL 0600 when the background checkpointer rewinds it', async () => {
  const runtime = await openService(join(root, 'data'));
  const file = runtime.config.databaseFile;
  const checkpointer = startBackgroundCheckpoints(runtime.db, 60_000);
  for (let i = 0; i < 20; i += 1) await makeWorkspace(runtime);
  await checkpointer.stop();
  await makeWorkspace(runtime);
  for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(modeOf(path), path).toBe('600');
});

it('brings a database an earlier version left 0644 (and its -wal and -shm) back to 0600 when it opens', async () => {
  const dataDir = join(root, 'data');
  const first = await openService(dataDir);
  await makeWorkspace(first);
  const file = first.config.databaseFile;
  for (const path of [file, `${file}-wal`, `${file}-shm`]) chmodSync(path, 0o644);
  chmodSync(dataDir, 0o755);

  const again = await openService(dataDir);
  await makeWorkspace(again);
  for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(modeOf(path), path).toBe('600');
  // An existing directory stays as the operator set it.
  expect(modeOf(dataDir)).toBe('755');
});

it('writes the copy `admin backup` takes 0600', async () => {
  const runtime = await openService(join(root, 'data'));
  await makeWorkspace(runtime);
  const target = join(root, 'copy.db');
  const { code, out } = await runAdminCaptured(runtime, 'backup', '--to', target);
  expect(code, out).toBe(0);
  expect(modeOf(target)).toBe('600');
});
