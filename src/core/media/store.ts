import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBase62 } from '../ids.ts';

/**
 * Where the bytes of uploaded media live. The database keeps the row; the store keeps the file
 * under its storage key, a random name that also appears in the public URL.
 */
export interface MediaStore {
  /**
   * Streams `source` into a new file and answers its storage key once every byte is on disk. A
   * failure of the source (an abort, a limit) leaves nothing behind.
   */
  put(source: Readable): Promise<{ storageKey: string }>;
  /** A local path the door can serve with range support; a remote store would answer a URL instead. */
  localPath(storageKey: string): string;
  delete(storageKey: string): Promise<void>;
}

/** 32 base62 characters: about 190 random bits, so a file's URL cannot be guessed. */
export const STORAGE_KEY = /^[0-9A-Za-z]{32}$/;

/**
 * The local-disk store under MEDIA_DIR. A file is written as `<key>.part` and renamed when complete,
 * so a reader never sees half a file under a served name.
 */
export class LocalDiskMediaStore implements MediaStore {
  readonly dir: string;
  private ready: Promise<unknown> | undefined;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  async put(source: Readable): Promise<{ storageKey: string }> {
    this.ready ??= mkdir(this.dir, { recursive: true });
    await this.ready;
    const storageKey = randomBase62(32);
    const partial = join(this.dir, `${storageKey}.part`);
    try {
      await pipeline(source, createWriteStream(partial, { flags: 'wx' }));
      await rename(partial, this.localPath(storageKey));
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return { storageKey };
  }

  localPath(storageKey: string): string {
    if (!STORAGE_KEY.test(storageKey)) throw new Error(`Not a storage key: ${storageKey}`);
    return join(this.dir, storageKey);
  }

  async delete(storageKey: string): Promise<void> {
    await rm(this.localPath(storageKey), { force: true });
  }
}

const stores = new Map<string, MediaStore>();

/** One store per directory per process. */
export function mediaStoreFor(dir: string): MediaStore {
  let store = stores.get(resolve(dir));
  if (!store) {
    store = new LocalDiskMediaStore(dir);
    stores.set(resolve(dir), store);
  }
  return store;
}
