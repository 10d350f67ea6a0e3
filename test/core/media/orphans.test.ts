import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mediaAssets } from '../../../db/schema/index.ts';
import { randomBase62 } from '../../../src/core/ids.ts';
import { ORPHAN_MIN_AGE_MS, sweepOrphanMedia } from '../../../src/core/media/orphans.ts';
import { LocalDiskMediaStore } from '../../../src/core/media/store.ts';
import { sweepMedia } from '../../../src/jobs/maintenance.ts';
import { makeWorkspace } from '../../helpers/factories.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

/** The maintenance sweep of media files a crash left without their row. */
describe('orphan media sweep', () => {
  let dir: string;
  let runtime: TestRuntime;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'media-orphans-'));
    runtime = await testRuntime({ env: { MEDIA_DIR: dir } });
    workspaceId = undefined;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Sets a file's mtime `ms` before the wall clock: file ages are wall-clock ages. */
  const age = (name: string, ms: number) => {
    const at = new Date(Date.now() - ms);
    utimesSync(join(dir, name), at, at);
  };
  const file = (name: string, ageMs: number) => {
    writeFileSync(join(dir, name), 'bytes');
    age(name, ageMs);
    return name;
  };
  let workspaceId: string | undefined;
  const recordRow = async (storageKey: string) => {
    workspaceId ??= (await makeWorkspace(runtime)).workspace.id;
    await runtime.db
      .insert(mediaAssets)
      .values({
        id: randomBase62(16),
        workspaceId,
        storageKey,
        filename: 'a.png',
        assetType: 'image',
        mimeType: 'image/png',
        sizeBytes: 5,
        tags: [],
        createdAt: runtime.clock.now(),
      })
      .run();
  };
  const TWO_HOURS = 2 * 60 * 60_000;

  it('removes old files without a row, finished or cut short, and keeps the rest', async () => {
    const { storageKey: kept } = await new LocalDiskMediaStore(dir).put(Readable.from([Buffer.from('image')]));
    await recordRow(kept);
    age(kept, TWO_HOURS);
    const orphan = file(randomBase62(32), TWO_HOURS);
    const cutShort = file(`${randomBase62(32)}.part`, TWO_HOURS);
    const young = file(randomBase62(32), 60_000);
    const inFlight = file(`${randomBase62(32)}.part`, 0);
    const foreign = file('README.txt', TWO_HOURS);
    const notAFile = randomBase62(32);
    mkdirSync(join(dir, notAFile));
    age(notAFile, TWO_HOURS);

    expect(await sweepOrphanMedia(runtime)).toBe(2);
    expect(readdirSync(dir).sort()).toEqual([kept, young, inFlight, foreign, notAFile].sort());
    expect(existsSync(join(dir, orphan))).toBe(false);
    expect(existsSync(join(dir, cutShort))).toBe(false);

    // Nothing more while the young file is under an hour old; swept once it is past.
    expect(await sweepOrphanMedia(runtime)).toBe(0);
    age(young, ORPHAN_MIN_AGE_MS - 5_000);
    expect(await sweepOrphanMedia(runtime)).toBe(0);
    age(young, ORPHAN_MIN_AGE_MS + 5_000);
    expect(await sweepOrphanMedia(runtime)).toBe(1);
    expect(existsSync(join(dir, young))).toBe(false);
    expect(existsSync(join(dir, kept))).toBe(true);
  });

  it('goes by the wall clock, not the injected one: moving the clock ahead sweeps no young file', async () => {
    const young = file(randomBase62(32), 0);
    runtime.clock.advance(30 * 24 * 60 * 60_000);
    expect(await sweepOrphanMedia(runtime)).toBe(0);
    expect(existsSync(join(dir, young))).toBe(true);
  });

  it('a row for a file whose name carries .part keeps it too, and a missing media directory is no error', async () => {
    const key = randomBase62(32);
    file(`${key}.part`, TWO_HOURS);
    await recordRow(key);
    expect(await sweepMedia(runtime)).toBe(0);
    rmSync(dir, { recursive: true, force: true });
    expect(await sweepMedia(runtime)).toBe(0);
  });

  it('looks rows up in batches: a large library with a few orphans', async () => {
    const keys = Array.from({ length: 1_203 }, () => randomBase62(32));
    for (const key of keys) file(key, TWO_HOURS);
    const orphans = new Set([keys[0], keys[600], keys[1_202]]);
    for (const key of keys) if (!orphans.has(key)) await recordRow(key);
    expect(await sweepOrphanMedia(runtime)).toBe(3);
    expect(readdirSync(dir)).toHaveLength(1_200);
  });
});
