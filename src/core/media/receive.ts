import { createHash } from 'node:crypto';
import { pipeline, Transform, type Readable } from 'node:stream';
import { imageSize } from 'image-size';
import { fieldError, ServiceError } from '../errors.ts';
import type { UploadLimits } from './quota.ts';
import { SNIFF_BYTES, sniffMediaType, type SniffedType } from './sniff.ts';
import type { MediaStore } from './store.ts';
import { structureCheck, type StructureCheck } from './structure.ts';

/** A file safely on disk, described from its own bytes, waiting for its row. */
export interface StoredFile extends SniffedType {
  storageKey: string;
  sizeBytes: number;
  /** Pixels, read from the image header (an image without them is refused); null for video (docs/decisions.md, Media). */
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

/** A file that is not the image its first bytes say, as a validation error naming the problem. */
export const malformedImage = (type: SniffedType, problem: string) =>
  fieldError('file', `The file is not a well-formed ${IMAGE_NAMES[type.mimeType] ?? type.mimeType}: ${problem}.`);

const IMAGE_NAMES: Record<string, string> = {
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/gif': 'GIF',
  'image/webp': 'WebP',
};

/**
 * Streams an upload into the store while counting it: the type is decided from the first bytes
 * (415 before the rest is written when it is not one the library takes), an image's structure is
 * walked as it comes (structure.ts: 400 naming the problem, as soon as it shows), the size is capped
 * (413 past MEDIA_MAX_BYTES, quota_exceeded past the room the workspace's quota leaves, each as soon
 * as it is passed) and nothing but the head is held in memory. Any failure leaves no file behind
 * (the store removes the partial file).
 */
export async function receiveUpload(store: MediaStore, source: Readable, limits: UploadLimits): Promise<StoredFile> {
  const { maxBytes, roomBytes } = limits;
  let size = 0;
  let sniffed: SniffedType | null | undefined;
  let structure: StructureCheck | null = null;
  /** What came before the type was known, fed to the structure check once it is. */
  let beforeSniff: Buffer[] = [];
  let dimensions: { width: number | null; height: number | null } = { width: null, height: null };
  const headChunks: Buffer[] = [];
  let headLength = 0;
  const hash = createHash('sha256');
  const head = () => Buffer.concat(headChunks, headLength);
  /** Once the type is known: 415 for one the library does not take, else the structure check of what came so far. */
  const decideType = (): Error | null => {
    sniffed = sniffMediaType(head());
    if (sniffed === null) return unsupportedType();
    structure = structureCheck(sniffed);
    const seen = beforeSniff;
    beforeSniff = [];
    for (const chunk of seen) {
      const problem = structure?.push(chunk);
      if (problem) return malformedImage(sniffed, problem);
    }
    return null;
  };
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) return callback(tooLarge(maxBytes));
      if (size > roomBytes) return callback(limits.storageFull());
      if (headLength < HEAD_BYTES) {
        const part = chunk.subarray(0, HEAD_BYTES - headLength);
        headChunks.push(Buffer.from(part));
        headLength += part.length;
      }
      if (sniffed === undefined) {
        beforeSniff.push(chunk);
        if (headLength >= SNIFF_BYTES) {
          const refused = decideType();
          if (refused) return callback(refused);
        }
      } else {
        const problem = structure?.push(chunk);
        if (problem) return callback(malformedImage(sniffed!, problem));
      }
      hash.update(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      if (sniffed === undefined) {
        const refused = decideType();
        if (refused) return callback(refused);
      }
      const type = sniffed!;
      const problem = structure?.end();
      if (problem) return callback(malformedImage(type, problem));
      if (type.assetType === 'image') {
        const read = dimensionsOf(head());
        if (read === null) return callback(malformedImage(type, 'its header does not give its width and height'));
        dimensions = read;
      }
      callback(null);
    },
  });
  // pipeline ties the two together: a source that fails or ends early fails the write, and a
  // failed write (a limit, a disk error) destroys the source.
  const { storageKey } = await store.put(pipeline(source, meter, () => undefined));
  const type = sniffed as unknown as SniffedType;
  return { ...type, storageKey, sizeBytes: size, ...dimensions, sha256: hash.digest('hex') };
}

/** An image's width and height from its header, or null when the header does not give both. */
function dimensionsOf(head: Buffer): { width: number; height: number } | null {
  try {
    const { width, height } = imageSize(head);
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}
