import { and, desc, eq } from 'drizzle-orm';
import { notFound } from '../errors.ts';
import type { Db } from '../../../db/client.ts';
import { mediaAssets } from '../../../db/schema/index.ts';
import { newId } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { afterCursor, listEnvelope, toPage } from '../pagination.ts';
import {
  CreateMediaAssetInput,
  ListMediaInput,
  MediaAssetResource as MediaAssetResourceSchema,
  UpdateMediaAssetInput,
} from './schemas.ts';
import { toMediaAssetResource, type MediaAssetResource, type MediaAssetRow } from './serialize.ts';

/**
 * POST /media_assets, once the file is on disk (see receive.ts): records the asset. Takes from the
 * write and the media buckets (a request consumes every rate-limit bucket it belongs to).
 */
export const createMediaAsset = defineOperation({
  name: 'createMediaAsset',
  buckets: ['write', 'media'],
  input: CreateMediaAssetInput,
  output: MediaAssetResourceSchema,
  run(ctx, { upload, filename, tags, alt_text }): MediaAssetResource {
    const row = ctx.db
      .insert(mediaAssets)
      .values({
        id: newId(),
        workspaceId: ctx.workspace.id,
        storageKey: upload.storageKey,
        filename: filename ?? `upload.${upload.extension}`,
        assetType: upload.assetType,
        mimeType: upload.mimeType,
        sizeBytes: upload.sizeBytes,
        width: upload.width,
        height: upload.height,
        tags,
        altText: alt_text ?? null,
        createdAt: ctx.clock.now(),
      })
      .returning()
      .get();
    return toMediaAssetResource(row, ctx.config.publicBaseUrl);
  },
});

/** PATCH /media_assets/{id}: sets or removes the asset's alt text; another workspace's asset is 404. */
export const updateMediaAsset = defineOperation({
  name: 'updateMediaAsset',
  buckets: ['write'],
  input: UpdateMediaAssetInput,
  output: MediaAssetResourceSchema,
  run(ctx, input): MediaAssetResource {
    const row = ctx.db
      .update(mediaAssets)
      .set({ altText: input.alt_text })
      .where(and(eq(mediaAssets.workspaceId, ctx.workspace.id), eq(mediaAssets.id, input.id)))
      .returning()
      .get();
    if (!row) throw notFound('media asset');
    return toMediaAssetResource(row, ctx.config.publicBaseUrl);
  },
});

/** GET /media-library: the workspace's assets, newest first, optionally of one asset_type. */
export const listMedia = defineOperation({
  name: 'listMedia',
  buckets: ['read'],
  input: ListMediaInput,
  output: listEnvelope(MediaAssetResourceSchema),
  run({ db, workspace, config, answerBudget }, input) {
    const rows = db
      .select()
      .from(mediaAssets)
      .where(
        and(
          eq(mediaAssets.workspaceId, workspace.id),
          input.asset_type ? eq(mediaAssets.assetType, input.asset_type) : undefined,
          ...afterCursor(input.cursor, mediaAssets.createdAt, mediaAssets.id),
        ),
      )
      .orderBy(desc(mediaAssets.createdAt), desc(mediaAssets.id))
      .limit(input.limit + 1)
      .all();
    return toPage(
      rows,
      input.limit,
      (r) => ({ createdAt: r.createdAt, id: r.id }),
      (r) => toMediaAssetResource(r, config.publicBaseUrl),
      answerBudget,
    );
  },
});

/** The asset a public file URL names, whatever its workspace: the random key is the capability. */
export function findAssetByStorageKey(db: Db, storageKey: string): MediaAssetRow | undefined {
  return db.select().from(mediaAssets).where(eq(mediaAssets.storageKey, storageKey)).get();
}
