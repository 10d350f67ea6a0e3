import { createHash } from 'node:crypto';
import { pipeline, Transform, type Readable } from 'node:stream';
import { imageSize } from 'image-size';
import { ServiceError } from '../errors.ts';
import { SNIFF_BYTES, sniffMediaType, type SniffedType } from './sniff.ts';
import type { MediaStore } from './store.ts';

/** A file safely on disk, described from its own bytes, waiting for its row. */
export interface StoredFile extends SniffedType {
  storageKey: string;
  sizeBytes: number;
  /** Pixels, read from the image header; null for video (docs/decisions.md, Media) or an unreadable header. */
  width: number | null;
  height: number | null;
  /** Hex SHA-256 of the bytes: what an Idempotency-Key compares. */
  sha256: string;
}

/** How much of the head is kept for the dimensions: image-size's own read for a file, enough for a JPEG's SOF after its EXIF. */
const HEAD_BYTES = 512 * 1024;

export const tooLarge = (maxBytes: number) =>
  new ServiceError('payload_too_large', `The file is larger than the limit of ${maxBytes} bytes.`);

export const unsupportedType = () =>
  new ServiceError(
    'unsupported_media_type',
    'The file is not a supported type. Upload JPEG, PNG, WebP or GIF images, or MP4, QuickTime or WebM video; the type is read from the bytes, not the name.',
  );

/**
 * Streams an upload into the store while counting it: the type is decided from the first bytes
 * (415 before the rest is written when it is not one the library takes), the size is capped (413
 * as soon as the cap is passed) and nothing but the head is held in memory. Any failure leaves no
 * file behind (the store removes the partial file).
 */
export async function receiveUpload(store: MediaStore, source: Readable, maxBytes: number): Promise<StoredFile> {
  let size = 0;
  let sniffed: SniffedType | null | undefined;
  const headChunks: Buffer[] = [];
  let headLength = 0;
  const hash = createHash('sha256');
  const head = () => Buffer.concat(headChunks, headLength);
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) return callback(tooLarge(maxBytes));
      if (headLength < HEAD_BYTES) {
        const part = chunk.subarray(0, HEAD_BYTES - headLength);
        headChunks.push(Buffer.from(part));
        headLength += part.length;
      }
      if (sniffed === undefined && headLength >= SNIFF_BYTES) {
        sniffed = sniffMediaType(head());
        if (sniffed === null) return callback(unsupportedType());
      }
      hash.update(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      if (sniffed === undefined) sniffed = sniffMediaType(head());
      callback(sniffed === null ? unsupportedType() : null);
    },
  });
  // pipeline ties the two together: a source that fails or ends early fails the write, and a
  // failed write (a limit, a disk error) destroys the source.
  const { storageKey } = await store.put(pipeline(source, meter, () => undefined));
  const type = sniffed as SniffedType;
  const { width, height } = type.assetType === 'image' ? dimensionsOf(head()) : { width: null, height: null };
  return { ...type, storageKey, sizeBytes: size, width, height, sha256: hash.digest('hex') };
}

function dimensionsOf(head: Buffer): { width: number | null; height: number | null } {
  try {
    const { width, height } = imageSize(head);
    return { width: width ?? null, height: height ?? null };
  } catch {
    return { width: null, height: null };
  }
}
