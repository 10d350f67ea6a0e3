/**
 * Publishing on Bluesky: each image goes up once with `com.atproto.repo.uploadBlob` (its blob
 * reference saved the moment it answers), mentions are resolved to DIDs, and the post is one
 * `com.atproto.repo.createRecord` in `app.bsky.feed.post`, at a record key (a TID) the service chose
 * and saved before sending it. No idempotency key exists and today's server answers a repeated key
 * with a plain 500, so a create whose answer was lost is never sent again blind: the key is looked up
 * first (`com.atproto.repo.getRecord`); found, the post is done; not found, it is created at that key.
 */
import { imageSize } from 'image-size';
import { z } from 'zod';
import { checkpointCodec } from '../checkpoint.ts';
import {
  PlatformError,
  type LivePost,
  type LivePublisher,
  type LiveSession,
  type MediaFile,
} from '../platform-client.ts';
import { facetsOf, mentionedHandles } from './facets.ts';
import type { BlueskyConfig } from './sessions.ts';
import { newTid, TID_PATTERN } from './tid.ts';
import { BLUESKY, xrpc, xrpcErrorName, type XrpcCall, type XrpcObject } from './xrpc.ts';

/** `app.bsky.embed.images`: at most 4 images, each at most 2,000,000 bytes (1,000,000 before 2026-04-08). */
export const MAX_IMAGES = 4;
export const MAX_IMAGE_BYTES = 2_000_000;
const POST_COLLECTION = 'app.bsky.feed.post';

/** A blob reference as uploadBlob answers it and a record embeds it. */
const BlobRef = z.object({
  $type: z.literal('blob'),
  ref: z.object({ $link: z.string().min(1) }),
  mimeType: z.string().min(1),
  size: z.number().int().nonnegative(),
});
type BlobRef = z.infer<typeof BlobRef>;

/** What the publisher keeps in the attempt's checkpoint, each field read back through its schema. */
const BLUESKY_CHECKPOINT = checkpointCodec({
  /** The images uploaded so far, in order; null where not uploaded yet. */
  blobs: z.array(BlobRef.nullable()),
  /** The post's record key, saved before the create call. */
  rkey: z.string().regex(TID_PATTERN),
  /** The record's `createdAt`, so a second create at the key sends the very same record. */
  createdAt: z.iso.datetime({ offset: true }),
});

export function blueskyPublisher(config: BlueskyConfig, options: { now: () => Date }): LivePublisher {
  const { now } = options;
  const send = (session: LiveSession, label: string, call: XrpcCall, create = false) =>
    session.call(label, (token) => xrpc(config.apiBaseUrl, { ...call, token }, session.requestTimeoutMs, now), {
      create,
    });

  const postOf = (session: LiveSession, rkey: string): LivePost => ({
    platformPostId: `at://${session.account.platformUserId}/${POST_COLLECTION}/${rkey}`,
    url: `https://bsky.app/profile/${session.account.username}/post/${rkey}`,
  });

  /** Whether the record at `rkey` exists (RecordNotFound answers no). */
  const recordExists = async (session: LiveSession, rkey: string): Promise<boolean> => {
    try {
      await send(session, 'getRecord', {
        nsid: 'com.atproto.repo.getRecord',
        subject: 'looking up the post',
        params: { repo: session.account.platformUserId, collection: POST_COLLECTION, rkey },
      });
      return true;
    } catch (error) {
      if (xrpcErrorName(error) === 'RecordNotFound') return false;
      throw error;
    }
  };

  /** Uploads each image not uploaded yet, saving each blob reference as it comes. */
  const uploadImages = async (session: LiveSession, images: MediaFile[]): Promise<BlobRef[]> => {
    const saved = BLUESKY_CHECKPOINT.read(session.checkpoint.data).blobs;
    const blobs: Array<BlobRef | null> = images.map((_, i) => saved?.[i] ?? null);
    for (const [i, image] of images.entries()) {
      if (blobs[i]) continue;
      const answer = await send(session, 'uploadBlob', {
        nsid: 'com.atproto.repo.uploadBlob',
        subject: `uploading image ${i + 1}`,
        bytes: { data: image.bytes, contentType: image.mimeType },
        refusal: 'media_invalid',
      });
      const blob = BlobRef.safeParse(answer.blob);
      if (!blob.success) {
        throw new PlatformError(
          'transient',
          `${BLUESKY} answered uploadBlob for image ${i + 1} without a blob reference.`,
        );
      }
      blobs[i] = blob.data;
      await BLUESKY_CHECKPOINT.save(session.checkpoint, { blobs });
    }
    return blobs as BlobRef[];
  };

  /** Each mentioned handle's DID; a handle that names no account gets no mention facet. */
  const resolveMentions = async (session: LiveSession, text: string): Promise<Map<string, string | null>> => {
    const dids = new Map<string, string | null>();
    for (const handle of mentionedHandles(text)) {
      try {
        const answer = await send(session, 'resolveHandle', {
          nsid: 'com.atproto.identity.resolveHandle',
          subject: `resolving @${handle}`,
          params: { handle },
        });
        dids.set(handle, typeof answer.did === 'string' && answer.did.startsWith('did:') ? answer.did : null);
      } catch (error) {
        // An unknown handle is plain text; anything else (the server down) stops the publish.
        if (error instanceof PlatformError && error.kind === 'content_rejected') dids.set(handle, null);
        else throw error;
      }
    }
    return dids;
  };

  /** The record as posted: text, its facets, the images with alt text and aspect ratio. */
  const recordOf = async (session: LiveSession, blobs: BlobRef[], images: MediaFile[], createdAt: string) => {
    const { text } = session.post;
    const dids = await resolveMentions(session, text);
    const facets = facetsOf(text, (handle) => dids.get(handle) ?? null);
    const record: XrpcObject = { $type: POST_COLLECTION, text, createdAt };
    if (facets.length > 0) record.facets = facets;
    // The lexicon's `langs`: at most 3 BCP 47 tags, which clients use to filter and translate posts.
    if (session.post.languages.length > 0) record.langs = session.post.languages;
    if (blobs.length > 0) {
      record.embed = {
        $type: 'app.bsky.embed.images',
        images: blobs.map((image, i) => ({
          image,
          // The lexicon requires alt text. Without a description (the item's or the media asset's) it is
          // empty, the image as decoration: repeating the caption would make a screen reader read it twice.
          alt: images[i]!.altText ?? '',
          ...aspectRatioOf(images[i]!),
        })),
      };
    }
    return record;
  };

  const createAt = (session: LiveSession, rkey: string, record: XrpcObject, create: boolean) =>
    send(
      session,
      'createRecord',
      {
        nsid: 'com.atproto.repo.createRecord',
        subject: 'creating the post',
        json: { repo: session.account.platformUserId, collection: POST_COLLECTION, rkey, record },
        create,
      },
      create,
    );

  return {
    platform: 'bluesky',
    async publish(session) {
      const images = await imagesOf(session);
      const saved = BLUESKY_CHECKPOINT.read(session.checkpoint.data);
      // A resumed attempt that already chose its key may have sent it (the create mark says so only
      // once committed): the key is looked up before anything is sent again.
      if (saved.rkey && (await recordExists(session, saved.rkey))) return postOf(session, saved.rkey);
      const blobs = await uploadImages(session, images);
      const rkey = saved.rkey ?? newTid(now());
      const createdAt = saved.createdAt ?? now().toISOString();
      if (!saved.rkey) await BLUESKY_CHECKPOINT.save(session.checkpoint, { rkey, createdAt });
      const record = await recordOf(session, blobs, images, createdAt);
      await createAt(session, rkey, record, true);
      return postOf(session, rkey);
    },
    /**
     * After a create whose answer was lost (or a process that died past it): the saved key is looked
     * up; found, the post is done; not found, the record is created at that key, which a second
     * create could only duplicate by reusing the key, which the server refuses.
     */
    async reconcile(session) {
      const { rkey, createdAt } = BLUESKY_CHECKPOINT.read(session.checkpoint.data);
      if (!rkey || !createdAt) return null;
      if (await recordExists(session, rkey)) return postOf(session, rkey);
      const images = await imagesOf(session);
      const blobs = await uploadImages(session, images);
      const record = await recordOf(session, blobs, images, createdAt);
      try {
        await createAt(session, rkey, record, false);
      } catch (error) {
        // Stored, then the answer lost again (or the server's 500 for a key taken meanwhile): look once more.
        if (await recordExists(session, rkey)) return postOf(session, rkey);
        throw error;
      }
      return postOf(session, rkey);
    },
  };
}

/**
 * The post's images, checked before anything is uploaded: Bluesky takes no video here, at most 4
 * images, each at most 2,000,000 bytes.
 */
async function imagesOf(session: LiveSession): Promise<MediaFile[]> {
  if (session.post.mediaUrls.length > MAX_IMAGES) {
    throw new PlatformError(
      'media_invalid',
      `${BLUESKY} takes at most ${MAX_IMAGES} images per post; this post has ${session.post.mediaUrls.length}.`,
    );
  }
  const files = await session.media();
  for (const [i, file] of files.entries()) {
    if (file.kind === 'video') {
      throw new PlatformError(
        'media_invalid',
        `${BLUESKY} takes images only: media ${i + 1} (${file.url}) is a video; publish it elsewhere or leave it out.`,
      );
    }
    if (file.bytes.length > MAX_IMAGE_BYTES) {
      throw new PlatformError(
        'media_invalid',
        `${BLUESKY} takes images of at most ${MAX_IMAGE_BYTES.toLocaleString('en-US')} bytes; media ${i + 1} (${file.url}) has ${file.bytes.length.toLocaleString('en-US')}.`,
      );
    }
  }
  return files;
}

/** The image's width and height, as `app.bsky.embed.images` takes them; nothing when unreadable. */
function aspectRatioOf(image: MediaFile): { aspectRatio?: { width: number; height: number } } {
  try {
    const { width, height } = imageSize(image.bytes);
    return width && height ? { aspectRatio: { width, height } } : {};
  } catch {
    return {};
  }
}
