import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';

export const ASSET_TYPES = ['image', 'video'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/** An uploaded file of a workspace's media library; the bytes live in the media store (see storage). */
export const mediaAssets = sqliteTable(
  'media_assets',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** Random and unguessable: names the stored file and appears in its public URL. */
    storageKey: text('storage_key').notNull().unique(),
    /** The name the file was uploaded with (display only; never used to decide the type). */
    filename: text('filename').notNull(),
    assetType: text('asset_type', { enum: ASSET_TYPES }).notNull(),
    mimeType: text('mime_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    width: integer('width'),
    height: integer('height'),
    tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
    /** What the image shows, for people who cannot see it (sent to the platforms as alt text); null when not given. */
    altText: text('alt_text'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('media_assets_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('media_assets_workspace_type_created_idx').on(t.workspaceId, t.assetType, t.createdAt, t.id),
  ],
);
