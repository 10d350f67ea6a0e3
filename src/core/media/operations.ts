import { and, asc, desc, eq, inArray, like, sql } from 'drizzle-orm';
import { savepoint, type Db } from '../../../db/client.ts';
import { inNextCommit } from '../batch.ts';
import { CONTENT_STATUSES, content, mediaAssets, type ContentStatus } from '../../../db/schema/index.ts';
import { notFound, ServiceError } from '../errors.ts';
import { newId } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { afterCursor, deletedResource, listEnvelope, toPage } from '../pagination.ts';
import { assertStorageRoom } from './quota.ts';
import {
  CreateMediaAssetInput,
  ListMediaInput,
  MediaAssetIdInput,
  MediaAssetResource as MediaAssetResourceSchema,
  UpdateMediaAssetInput,
} from './schemas.ts';
import { toMediaAssetResource, type MediaAssetResource, type MediaAssetRow } from './serialize.ts';
import { mediaStoreFor } from './store.ts';

/**
 * POST /media_assets, once the file is on disk (see receive.ts): records the asset. Takes from the
 * write and the media buckets (a request consumes every rate-limit bucket it belongs to). The quota
 * is checked again here, in the write: uploads that streamed side by side each saw the room left
 * when they began.
 */
export const createMediaAsset = defineOperation({
  name: 'createMediaAsset',
  buckets: ['write', 'media'],
  scope: 'write',
  input: CreateMediaAssetInput,
  output: MediaAssetResourceSchema,
  errors: { quota_exceeded: "the file would take the media library past the plan's storage quota" },
  async run(ctx, { upload, filename, tags, alt_text }): Promise<MediaAssetResource> {
    await assertStorageRoom(ctx.db, ctx.workspace, upload.sizeBytes);
    const row = await ctx.db
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
  scope: 'write',
  input: UpdateMediaAssetInput,
  output: MediaAssetResourceSchema,
  async run(ctx, input): Promise<MediaAssetResource> {
    const row = await ctx.db
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
  scope: 'read',
  input: ListMediaInput,
  output: listEnvelope(MediaAssetResourceSchema),
  async run({ db, workspace, config, answerBudget }, input) {
    const rows = await db
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
export async function findAssetByStorageKey(db: Db, storageKey: string): Promise<MediaAssetRow | undefined> {
  return db.select().from(mediaAssets).where(eq(mediaAssets.storageKey, storageKey)).get();
}

/** The asset `id` of the workspace, or not_found (another workspace's asset is not found either). */
export async function getMediaAssetInWorkspace(db: Db, workspaceId: string, id: string): Promise<MediaAssetRow> {
  const row = await db
    .select()
    .from(mediaAssets)
    .where(and(eq(mediaAssets.workspaceId, workspaceId), eq(mediaAssets.id, id)))
    .get();
  if (!row) throw notFound('media asset');
  return row;
}

/** Statuses after which an item needs its media no more. */
export const FINISHED_STATUSES: readonly ContentStatus[] = ['published', 'archived', 'rejected'];
const UNFINISHED_STATUSES = CONTENT_STATUSES.filter((status) => !FINISHED_STATUSES.includes(status));

/** An item that still needs a media file: not yet published, archived or rejected. */
export interface ItemUsingMedia {
  id: string;
  status: ContentStatus;
  caption: string;
}

/**
 * The workspace's unfinished items whose media_urls name the asset's file, oldest first. Matched on
 * the storage key, which is random and appears only in that file's URL (whatever host it is written with).
 */
export async function itemsUsingMedia(
  db: Db,
  workspaceId: string,
  asset: Pick<MediaAssetRow, 'storageKey'>,
): Promise<ItemUsingMedia[]> {
  return db
    .select({ id: content.id, status: content.status, caption: content.caption })
    .from(content)
    .where(
      and(
        eq(content.workspaceId, workspaceId),
        inArray(content.status, UNFINISHED_STATUSES),
        like(db.$store.sql.jsonText(sql`${content.mediaUrls}`), `%/media/${asset.storageKey}%`),
      ),
    )
    .orderBy(asc(content.createdAt), asc(content.id))
    .all();
}

/** How many items a refusal names before it says "and N more". */
const NAMED_ITEMS = 10;

/**
 * DELETE /api/v1/media_assets/{id}: removes the asset and its file, freeing its bytes from the
 * quota. A file an unfinished item still uses is refused (409 invalid_state, naming the items): a
 * post that is published or scheduled must find its media at its URL. Published, archived and
 * rejected items do not hold it; their URLs answer 404 afterwards. The file is removed once the row's
 * deletion has committed (a crash between the two leaves an orphan, which the hourly sweep removes).
 */
export const deleteMediaAsset = defineOperation({
  name: 'deleteMediaAsset',
  buckets: ['write'],
  scope: 'write',
  input: MediaAssetIdInput,
  output: deletedResource('media_asset'),
  errors: { invalid_state: 'an item not yet published, archived or rejected still uses the file' },
  awaitsNetwork: true,
  async run({ db, workspace, config }, input) {
    const row = await inNextCommit(db, () => savepoint(db, () => deleteUnusedAsset(db, workspace.id, input.id)));
    // Once the deletion has committed: never remove a file whose row stays.
    if (!(await findAssetByStorageKey(db, row.storageKey)))
      await mediaStoreFor(config.media.dir).delete(row.storageKey);
    return { id: row.id, object: 'media_asset' as const, deleted: true as const };
  },
});

/** Deletes the asset's row, refused while an item not yet finished uses its file; answers the row. */
async function deleteUnusedAsset(db: Db, workspaceId: string, id: string): Promise<MediaAssetRow> {
  const row = await getMediaAssetInWorkspace(db, workspaceId, id);
  const users = await itemsUsingMedia(db, workspaceId, row);
  if (users.length > 0) {
    const named = users
      .slice(0, NAMED_ITEMS)
      .map((item) => `${item.id} (${item.status})`)
      .join(', ');
    const more = users.length > NAMED_ITEMS ? ` and ${users.length - NAMED_ITEMS} more` : '';
    throw new ServiceError(
      'invalid_state',
      `This file is still used by ${users.length === 1 ? 'an item' : `${users.length} items`} not yet published, ` +
        `archived or rejected: ${named}${more}. Remove it from their media_urls, or finish them, then delete it.`,
    );
  }
  await db.delete(mediaAssets).where(eq(mediaAssets.id, row.id)).run();
  return row;
}
