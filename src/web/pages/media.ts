import { Router } from 'express';
import type { z } from 'zod';
import type { Runtime } from '../../core/context.ts';
import { getAccount } from '../../core/accounts/get-account.ts';
import type { AccountResource } from '../../core/accounts/schemas.ts';
import { deleteMediaAsset, getMediaAssetInWorkspace, itemsUsingMedia, listMedia } from '../../core/media/operations.ts';
import { formatBytes } from '../../core/media/quota.ts';
import { toMediaAssetResource, type MediaAssetResource } from '../../core/media/serialize.ts';
import type { ListEnvelope } from '../../core/pagination.ts';
import type { SignedIn } from '../../core/people/sessions.ts';
import { roleAllows } from '../../core/people/roles.ts';
import { foundOr404, type PageKit } from './kit.ts';

const MEDIA_PER_PAGE = 50;

/** The caption's first line, shortened, to name an item that still uses a file. */
const titleOf = (caption: string) => {
  const line = caption.split('\n')[0]!.trim();
  const points = [...line];
  return points.length > 60 ? `${points.slice(0, 60).join('')}…` : line || '(no caption)';
};

/**
 * /app/media: the workspace's media library (thumbnails, type, size), the storage used against the
 * plan's quota, and deleting a file after a confirmation, for editors and up (the operation's role:
 * roles.ts). A file an unfinished item still uses cannot be deleted; the confirmation names the items.
 */
export function mediaPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  const mayDelete = (who: SignedIn) => roleAllows(who.principal, deleteMediaAsset);

  router.get('/media', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    const cursor = typeof req.query.cursor === 'string' && req.query.cursor !== '' ? req.query.cursor : undefined;
    const [list, account] = await Promise.all([
      kit.run<ListEnvelope<MediaAssetResource>>(who, listMedia, { limit: MEDIA_PER_PAGE, cursor }),
      kit.run<z.output<typeof AccountResource>>(who, getAccount, {}),
    ]);
    const { storage_used_bytes: used, storage_limit_bytes: limit } = account.usage;
    const deletable = mayDelete(who);
    await kit.page(
      res,
      'Media',
      'pages/media',
      {
        storage: { used, limit, usedText: formatBytes(used), limitText: formatBytes(limit), plan: account.plan },
        assets: list.data.map((asset) => ({
          id: asset.id,
          url: asset.url,
          filename: asset.filename,
          image: asset.asset_type === 'image',
          type: asset.mime_type,
          size: formatBytes(asset.size_bytes),
          dimensions: asset.width && asset.height ? `${asset.width} × ${asset.height}` : null,
          uploaded: kit.fmt(who, new Date(asset.created_at)),
          deletable,
        })),
        next: list.next_cursor ? `/app/media?${new URLSearchParams({ cursor: list.next_cursor })}` : null,
        first: cursor ? '/app/media' : null,
        notice: req.query.done === 'deleted' ? 'File deleted: its URL no longer answers.' : undefined,
      },
      'media',
    );
  });

  router.get('/media/:id/delete', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    if (!mayDelete(who)) {
      res.status(403);
      return kit.page(res, 'Deleting media is for editors', 'message', {
        message: 'Only an editor, an approver or an admin of this workspace can delete media.',
        link: { href: '/app/media', text: 'Back to media' },
      });
    }
    const asset = await foundOr404(
      kit,
      res,
      async () => getMediaAssetInWorkspace(runtime.db, who.workspace.id, req.params.id),
      {
        message: 'There is no such file in this workspace, or it is deleted already.',
        back: { href: '/app/media', text: 'Back to media' },
      },
    );
    if (!asset) return;
    const resource = toMediaAssetResource(asset, runtime.config.publicBaseUrl);
    const users = await itemsUsingMedia(runtime.db, who.workspace.id, asset);
    if (users.length > 0) {
      return kit.page(res, `“${asset.filename}” is in use`, 'pages/media-in-use', {
        filename: asset.filename,
        items: users.map((item) => ({ id: item.id, title: titleOf(item.caption), status: item.status })),
      });
    }
    await kit.page(res, 'Delete this file?', 'pages/confirm', {
      question: `Delete “${asset.filename}” (${formatBytes(asset.sizeBytes)})?`,
      detail: `Its URL (${resource.url}) stops answering, also for published posts that link to it. This cannot be undone.`,
      action: `/app/media/${asset.id}/delete`,
      button: 'Delete',
      back: '/app/media',
    });
  });
  router.post(
    '/media/:id/delete',
    kit.act(async (who, req) => {
      await kit.run(who, deleteMediaAsset, { id: req.params.id });
      return '/app/media?done=deleted';
    }),
  );
  return router;
}
