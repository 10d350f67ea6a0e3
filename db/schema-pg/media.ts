import { bigint, index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { ASSET_TYPES } from '../schema/media.ts';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';

export const mediaAssets = pgTable(
  'media_assets',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    storageKey: text('storage_key').notNull().unique(),
    filename: text('filename').notNull(),
    assetType: text('asset_type', { enum: ASSET_TYPES }).notNull(),
    mimeType: text('mime_type').notNull(),
    // Summed against plan quotas in bytes: a video can pass 2 GiB.
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    width: integer('width'),
    height: integer('height'),
    tags: json('tags').$type<string[]>().notNull(),
    altText: text('alt_text'),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [
    index('media_assets_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('media_assets_workspace_type_created_idx').on(t.workspaceId, t.assetType, t.createdAt, t.id),
  ],
);
