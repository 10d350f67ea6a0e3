import type { AssetType } from '../../../db/schema/index.ts';

/** A type the media library accepts, decided from the file's first bytes. */
export interface SniffedType {
  assetType: AssetType;
  mimeType: string;
  /** The extension the public URL carries. */
  extension: string;
}

/** Enough of the head for every signature below (the WebM DocType sits within the first few dozen bytes). */
export const SNIFF_BYTES = 4_100;

const JPEG: SniffedType = { assetType: 'image', mimeType: 'image/jpeg', extension: 'jpg' };
const PNG: SniffedType = { assetType: 'image', mimeType: 'image/png', extension: 'png' };
const WEBP: SniffedType = { assetType: 'image', mimeType: 'image/webp', extension: 'webp' };
const GIF: SniffedType = { assetType: 'image', mimeType: 'image/gif', extension: 'gif' };
const MP4: SniffedType = { assetType: 'video', mimeType: 'video/mp4', extension: 'mp4' };
const QUICKTIME: SniffedType = { assetType: 'video', mimeType: 'video/quicktime', extension: 'mov' };
const WEBM: SniffedType = { assetType: 'video', mimeType: 'video/webm', extension: 'webm' };

/** ISO base media brands that mean an MP4 video (ISO/IEC 14496-12 and -14, Apple's M4V, DASH). */
const MP4_BRANDS = new Set([
  'isom',
  'iso2',
  'iso3',
  'iso4',
  'iso5',
  'iso6',
  'iso7',
  'iso8',
  'iso9',
  'mp41',
  'mp42',
  'mp71',
  'avc1',
  'M4V ',
  'M4VH',
  'M4VP',
  'dash',
  'mmp4',
  'f4v ',
]);
/** Same container, other things: still images (HEIF, AVIF) and audio (M4A, M4B, M4P). Refused even when they list an MP4 brand. */
const NOT_VIDEO_BRANDS = new Set([
  'heic',
  'heix',
  'heim',
  'heis',
  'hevc',
  'hevx',
  'mif1',
  'msf1',
  'avif',
  'avis',
  'M4A ',
  'M4B ',
  'M4P ',
  'F4A ',
  'F4B ',
  'crx ',
]);

const startsWith = (head: Uint8Array, bytes: number[], offset = 0) => bytes.every((b, i) => head[offset + i] === b);
const ascii = (head: Uint8Array, start: number, end: number) =>
  Buffer.from(head.subarray(start, end)).toString('latin1');

/**
 * The file's type from its bytes alone; the name and the part's Content-Type are never consulted.
 * Null for anything the library does not take. MP4 and QuickTime share the ISO base media format:
 * the `ftyp` major brand tells them apart (`qt  ` is QuickTime).
 */
export function sniffMediaType(head: Uint8Array): SniffedType | null {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return JPEG;
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return PNG;
  if (ascii(head, 0, 6) === 'GIF87a' || ascii(head, 0, 6) === 'GIF89a') return GIF;
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return WEBP;
  if (ascii(head, 4, 8) === 'ftyp') return isoBaseMedia(head);
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return ebmlDocType(head) === 'webm' ? WEBM : null;
  return null;
}

function isoBaseMedia(head: Uint8Array): SniffedType | null {
  if (head.length < 12) return null;
  const major = ascii(head, 8, 12);
  if (major === 'qt  ') return QUICKTIME;
  if (NOT_VIDEO_BRANDS.has(major)) return null;
  if (MP4_BRANDS.has(major)) return MP4;
  // An unusual major brand (a camera maker's) that declares MP4 compatibility is still an MP4.
  const boxSize = Buffer.from(head.subarray(0, 4)).readUInt32BE(0);
  const end = Math.min(boxSize, head.length);
  for (let offset = 16; offset + 4 <= end; offset += 4) {
    if (MP4_BRANDS.has(ascii(head, offset, offset + 4))) return MP4;
  }
  return null;
}

/** The EBML header's DocType (`webm` or `matroska`), read from its first element list. */
function ebmlDocType(head: Uint8Array): string | null {
  const limit = Math.min(head.length, 64);
  for (let i = 4; i + 3 < limit; i++) {
    if (head[i] !== 0x42 || head[i + 1] !== 0x82) continue;
    const first = head[i + 2];
    // A one-byte size (the form every muxer writes for a short DocType): 1xxxxxxx.
    if ((first & 0x80) === 0) return null;
    const size = first & 0x7f;
    return ascii(head, i + 3, i + 3 + size);
  }
  return null;
}
