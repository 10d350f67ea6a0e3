import { readFile } from 'node:fs/promises';
import { findAssetByStorageKey } from '../media/operations.ts';
import { downloadPublicFile, DownloadError } from '../media/download.ts';
import { SNIFF_BYTES, sniffMediaType } from '../media/sniff.ts';
import { mediaStoreFor, STORAGE_KEY } from '../media/store.ts';
import type { Runtime } from '../context.ts';
import { PlatformError, type MediaFile, type MediaRef } from './platform-client.ts';

const OWN_MEDIA_PATH = /^\/media\/([0-9A-Za-z]+)(?:\.[a-z0-9]+)?$/;

/**
 * The files behind a post's `media_urls`, in order. The service's own `/media/…` URLs are read straight
 * from storage; any other goes through the SSRF guard with `MEDIA_MAX_BYTES`. Every file's type is
 * sniffed from its bytes. A file that cannot be had is `media_invalid`, with the reason.
 */
export async function readPostMedia(runtime: Pick<Runtime, 'config'>, urls: readonly string[]): Promise<MediaFile[]> {
  const files: MediaFile[] = [];
  for (const url of urls) files.push(await readOne(runtime, url));
  return files;
}

async function readOne({ config }: Pick<Runtime, 'config'>, url: string): Promise<MediaFile> {
  const storageKey = ownStorageKey(config.publicBaseUrl, url);
  const bytes = await (storageKey
    ? readStored(config.media.dir, storageKey, url)
    : download(url, {
        maxBytes: config.media.maxBytes,
        timeoutMs: config.publishing.platformTimeoutSeconds * 1000,
        allowPrivateUrls: config.webhooks.allowPrivateUrls,
      }));
  const sniffed = sniffMediaType(bytes.subarray(0, SNIFF_BYTES));
  if (!sniffed) {
    throw new PlatformError(
      'media_invalid',
      `media URL ${url} is not an image or video the platforms take (JPEG, PNG, WebP, GIF, MP4, MOV or WebM).`,
    );
  }
  const kind = sniffed.mimeType === 'image/gif' ? 'gif' : sniffed.assetType === 'video' ? 'video' : 'image';
  return { url, bytes, mimeType: sniffed.mimeType, kind };
}

/** The storage key when `url` is one of the service's own media URLs. */
function ownStorageKey(publicBaseUrl: string, url: string): string | null {
  if (!url.startsWith(`${publicBaseUrl}/media/`)) return null;
  const key = OWN_MEDIA_PATH.exec(new URL(url).pathname)?.[1];
  return key && STORAGE_KEY.test(key) ? key : null;
}

async function readStored(dir: string, storageKey: string, url: string): Promise<Buffer> {
  try {
    return await readFile(mediaStoreFor(dir).localPath(storageKey));
  } catch {
    throw new PlatformError('media_invalid', `media URL ${url} names no file in the media library (was it deleted?).`);
  }
}

async function download(url: string, options: Parameters<typeof downloadPublicFile>[1]): Promise<Buffer> {
  try {
    return await downloadPublicFile(url, options);
  } catch (error) {
    if (error instanceof DownloadError) throw new PlatformError('media_invalid', `${error.message}.`);
    throw error;
  }
}

/**
 * What each of a post's media is, without handing over its bytes: for platforms that fetch the media
 * from its URL themselves (Meta, TikTok). The service's own files are known by their asset row; any
 * other URL is read once through the guard to sniff it, and passed on by its own URL.
 */
export async function describePostMedia(
  runtime: Pick<Runtime, 'config' | 'db'>,
  urls: readonly string[],
): Promise<MediaRef[]> {
  const refs: MediaRef[] = [];
  for (const url of urls) {
    const storageKey = ownStorageKey(runtime.config.publicBaseUrl, url);
    const asset = storageKey ? await findAssetByStorageKey(runtime.db, storageKey) : undefined;
    if (asset) {
      const kind = asset.mimeType === 'image/gif' ? 'gif' : asset.assetType === 'video' ? 'video' : 'image';
      refs.push({ url, mimeType: asset.mimeType, kind });
    } else {
      const { bytes: _bytes, ...ref } = await readOne(runtime, url);
      refs.push(ref);
    }
  }
  return refs;
}

/**
 * The alt text `url` goes out with: the item's own entry (`media_alt_text`), else the alt_text of the
 * media-library asset the URL names (the random key is the capability, as for the file itself), else null.
 */
export async function altTextOf(
  runtime: Pick<Runtime, 'config' | 'db'>,
  url: string,
  itemAltText: Readonly<Record<string, string>> = {},
): Promise<string | null> {
  const own = itemAltText[url];
  if (own !== undefined) return own;
  const storageKey = ownStorageKey(runtime.config.publicBaseUrl, url);
  return (storageKey && (await findAssetByStorageKey(runtime.db, storageKey))?.altText) || null;
}
