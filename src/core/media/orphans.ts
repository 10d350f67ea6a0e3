import { inArray } from 'drizzle-orm';
import { readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { mediaAssets } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { STORAGE_KEY } from './store.ts';

/**
 * A file younger than this may be an upload whose row is still to commit (or still being written):
 * an upload's last byte, the rename and the row's commit happen within one request.
 */
export const ORPHAN_MIN_AGE_MS = 60 * 60_000;

/** Files stat'ed and looked up together: one query per batch, whatever the size of the library. */
const BATCH = 500;

/**
 * Removes files in the media directory that no media asset row names and that were last written
 * over an hour ago: what a crash between a file landing and its row committing leaves behind (a
 * finished file, or a `<key>.part` cut short). Files whose names the store never writes are left
 * alone. Answers how many files were removed.
 *
 * Age is measured on the wall clock, not the runtime's injected clock: the file system stamps
 * mtime with the wall clock, and a clock moved by hand (tests, a replay) compared with it could
 * make an upload in flight look an hour old.
 */
export async function sweepOrphanMedia(runtime: Pick<Runtime, 'db' | 'config'>): Promise<number> {
  const dir = resolve(runtime.config.media.dir);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  const candidates = names.filter((name) => STORAGE_KEY.test(storageKeyOf(name)));
  let removed = 0;
  for (let i = 0; i < candidates.length; i += BATCH) {
    const cutoff = Date.now() - ORPHAN_MIN_AGE_MS;
    const old = (
      await Promise.all(
        candidates.slice(i, i + BATCH).map(async (name) => {
          const info = await stat(join(dir, name)).catch(() => null);
          return info?.isFile() && info.mtimeMs < cutoff ? name : null;
        }),
      )
    ).filter((name): name is string => name !== null);
    if (old.length === 0) continue;
    // Read after the files were found old: a row committed before this query is seen, and a file
    // that old has no row still on its way.
    const keys = [...new Set(old.map(storageKeyOf))];
    const known = new Set(
      (
        await runtime.db
          .select({ storageKey: mediaAssets.storageKey })
          .from(mediaAssets)
          .where(inArray(mediaAssets.storageKey, keys))
          .all()
      ).map((row) => row.storageKey),
    );
    for (const name of old) {
      if (known.has(storageKeyOf(name))) continue;
      await rm(join(dir, name), { force: true });
      removed++;
    }
  }
  return removed;
}

/** A finished file is named by its storage key; one being written is `<key>.part` (store.ts). */
function storageKeyOf(name: string): string {
  return name.endsWith('.part') ? name.slice(0, -'.part'.length) : name;
}
