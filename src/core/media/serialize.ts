import type { z } from 'zod';
import type { mediaAssets } from '../../../db/schema/index.ts';
import type { MediaAssetResource as MediaAssetResourceSchema } from './schemas.ts';

/** The resource as its schema describes it: the serializer must produce exactly this. */
export type MediaAssetResource = z.output<typeof MediaAssetResourceSchema>;

export type MediaAssetRow = typeof mediaAssets.$inferSelect;

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
};

/** The public file path: the storage key plus the extension of the sniffed type. */
export const mediaPath = (row: Pick<MediaAssetRow, 'storageKey' | 'mimeType'>): string =>
  `/media/${row.storageKey}${EXTENSIONS[row.mimeType] ? `.${EXTENSIONS[row.mimeType]}` : ''}`;

export const extensionOf = (mimeType: string): string | undefined => EXTENSIONS[mimeType];

/** The media asset resource. `url` is absolute and public. */
export function toMediaAssetResource(row: MediaAssetRow, publicBaseUrl: string): MediaAssetResource {
  return {
    id: row.id,
    object: 'media_asset' as const,
    url: `${publicBaseUrl}${mediaPath(row)}`,
    asset_type: row.assetType,
    mime_type: row.mimeType,
    size_bytes: row.sizeBytes,
    width: row.width,
    height: row.height,
    tags: row.tags,
    alt_text: row.altText,
    filename: row.filename,
    created_at: row.createdAt.toISOString(),
  };
}
