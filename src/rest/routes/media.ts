import busboy from 'busboy';
import type { Request, RequestHandler, Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { ServiceError, fieldError } from '../../core/errors.ts';
import type { Workspace } from '../../core/accounts/workspace.ts';
import {
  createMediaAsset,
  deleteMediaAsset,
  findAssetByStorageKey,
  listMedia,
  updateMediaAsset,
} from '../../core/media/operations.ts';
import { uploadLimitsFor } from '../../core/media/quota.ts';
import { receiveUpload, type StoredFile } from '../../core/media/receive.ts';
import { MAX_ALT_TEXT_LENGTH, MAX_TAG_LENGTH, MAX_TAGS } from '../../core/media/schemas.ts';
import { extensionOf } from '../../core/media/serialize.ts';
import { STORAGE_KEY, mediaStoreFor, type MediaStore } from '../../core/media/store.ts';
import { operationEndpoint, publicEndpoint, routerFor } from '../endpoints.ts';

/** What the multipart reader found, for the operation's input (keyed by request, never by body). */
interface Upload {
  file: StoredFile;
  filename: string | undefined;
  tags: string[];
  altText: string | undefined;
}
const uploads = new WeakMap<Request, Upload>();

const cutShort = () => new ServiceError('invalid_body', 'The upload was cut short before the file ended.');

const uploadInput = (req: Request) => {
  const received = uploads.get(req);
  return { upload: received?.file, filename: received?.filename, tags: received?.tags, alt_text: received?.altText };
};

/**
 * POST /media_assets: the same authentication, rate limiting, idempotency and failed-request
 * counting as every other route; the body is read by the multipart reader instead of the JSON parser.
 */
const uploadEndpoint = (path: string) =>
  operationEndpoint({
    method: 'post',
    path,
    summary: path.startsWith('/api/v1') ? 'Upload a media file' : 'Upload a media file (root address)',
    description:
      'Multipart form: the file in a field named file, tags in repeated or comma-separated tags fields, alt text in alt_text. The type is taken from ' +
      'the bytes (JPEG, PNG, WebP, GIF, MP4, QuickTime, WebM); an image must be whole (a PNG ends with IEND, a JPEG with ' +
      "EOI, a GIF with its trailer, a WebP at its RIFF size). The file counts against the plan's storage quota " +
      '(usage.storage_used_bytes and usage.storage_limit_bytes on GET /me): one that does not fit is 403 quota_exceeded.',
    operation: createMediaAsset,
    input: 'body',
    status: 201,
    upload: {
      reader: (runtime) => receiveMultipart(runtime, mediaStoreFor(runtime.config.media.dir)),
      input: uploadInput,
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['file'],
              properties: {
                file: {
                  type: 'string',
                  contentMediaType: 'application/octet-stream',
                  description: 'The image or video.',
                },
                tags: {
                  type: 'array',
                  items: { type: 'string', maxLength: MAX_TAG_LENGTH },
                  description: `Tags, repeated or comma-separated; at most ${MAX_TAGS}.`,
                },
                alt_text: {
                  type: 'string',
                  maxLength: MAX_ALT_TEXT_LENGTH,
                  description: 'What the image shows, for people who cannot see it; sent as alt text to the platforms.',
                },
              },
            },
          },
        },
      },
    },
  });

/** POST /media_assets (and under /api/v1), GET /api/v1/media-library, and the public file URLs; mounted at the root. */
export const mediaEndpoints = [
  uploadEndpoint('/api/v1/media_assets'),
  uploadEndpoint('/media_assets'),
  operationEndpoint({
    method: 'delete',
    path: '/api/v1/media_assets/:id',
    summary: 'Delete a media asset',
    description:
      'Removes the asset and its file, and frees its bytes from the storage quota; its URL answers 404 afterwards. ' +
      'Refused with 409 invalid_state, naming the items, while an item not yet published, archived or rejected has the ' +
      'file in its media_urls.',
    operation: deleteMediaAsset,
    input: 'path',
  }),
  operationEndpoint({
    method: 'get',
    path: '/api/v1/media-library',
    summary: 'List media assets',
    description: 'Newest first, optionally of one asset_type.',
    operation: listMedia,
    input: 'query',
  }),
  operationEndpoint({
    method: 'patch',
    path: '/api/v1/media_assets/:id',
    summary: "Set a media asset's alt text",
    description:
      'alt_text: what the image shows (null removes it). Items that attach the asset send it unless they give their own.',
    operation: updateMediaAsset,
    input: 'body',
  }),
  publicEndpoint({
    method: 'get',
    path: '/media/:file',
    summary: 'Fetch a media file',
    description:
      'Public, so platforms can fetch what a post links to: the random key is the capability. Range requests are served; ' +
      "a key's bytes never change, so the answer may be cached for a year.",
    handlers: (runtime) => [serveFile(runtime, mediaStoreFor(runtime.config.media.dir))],
    parameters: [
      {
        name: 'file',
        in: 'path',
        description: 'The storage key and extension, as in the asset url.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      200: { description: 'The file, with its stored type.', mediaType: '*/*' },
      206: { description: 'The requested range.', mediaType: '*/*' },
      304: { description: 'Not modified (If-None-Match matched).' },
      416: { description: 'The range lies outside the file.' },
    },
    errors: ['not_found'],
  }),
];

export const mediaRoutes = (runtime: Runtime): Router => routerFor(runtime, mediaEndpoints);

/**
 * Streams the multipart body: the `file` part goes to the store as it arrives (never buffered),
 * `tags` fields are collected. Refuses at once, without reading the rest, a type the library does
 * not take (415), a malformed image (400), a file past MEDIA_MAX_BYTES (413) or past the room the
 * storage quota leaves (403 quota_exceeded). Whatever happens, a stored file that ends
 * without a row (a failure after it was written, a 429, an idempotent replay) is deleted when the
 * response closes.
 */
function receiveMultipart(runtime: Runtime, store: MediaStore): RequestHandler {
  const { maxBytes } = runtime.config.media;
  return async (req, res, next) => {
    // Authenticated already (handle's gate runs first): the quota is the key's workspace's.
    const limits = await uploadLimitsFor(runtime.db, res.locals.workspace as Workspace, maxBytes);
    if (!req.is('multipart/form-data')) {
      throw new ServiceError(
        'unsupported_media_type',
        'Send the upload as multipart/form-data with the file in a field named file.',
      );
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fields: 100, fieldSize: 64 * 1024, parts: 101 } });
    } catch {
      throw new ServiceError('invalid_body', 'The multipart body has no boundary in its Content-Type.');
    }
    const tags: string[] = [];
    let altText: string | undefined;
    let filename: string | undefined;
    let stored: Promise<StoredFile> | undefined;
    let fileStream: (NodeJS.ReadableStream & { destroy(error?: Error): void }) | undefined;
    let done = false;

    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      req.unpipe(parser);
      if (error) {
        fileStream?.destroy(error instanceof Error ? error : cutShort());
        // Stop reading a body we refuse: the connection closes after the answer.
        if (!req.complete) res.set('Connection', 'close');
        req.resume();
        return next(error);
      }
      next();
    };

    res.once('close', () => {
      stored?.then(
        async (file) => {
          if (!(await findAssetByStorageKey(runtime.db, file.storageKey))) void store.delete(file.storageKey);
        },
        () => undefined,
      );
    });

    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || stored) {
        stream.resume();
        return;
      }
      fileStream = stream;
      filename = info.filename;
      stored = receiveUpload(store, stream, limits);
      // A refusal (400, 403, 413, 415) answers at once, without waiting for the rest of the body.
      stored.catch((error: unknown) => finish(error instanceof ServiceError ? error : cutShort()));
    });
    parser.on('field', (name, value) => {
      if (name === 'tags') tags.push(value);
      else if (name === 'alt_text') altText ??= value;
    });
    parser.on('error', () => finish(cutShort()));
    parser.on('close', () => {
      if (!stored) return finish(fieldError('file', 'Attach the file in a multipart field named file.'));
      stored.then(
        (file) => {
          uploads.set(req, { file, filename, tags, altText });
          // What an Idempotency-Key compares: the same bytes, name, tags and alt text are the same request.
          req.body = { file_sha256: file.sha256, filename, tags, alt_text: altText };
          finish();
        },
        () => undefined, // reported by the catch above
      );
    });
    req.on('close', () => {
      if (!req.complete) finish(cutShort());
    });
    req.pipe(parser);
  };
}

/**
 * GET /media/{key}.{ext}: public (platforms fetch it without a key), with the stored type, range
 * requests, and caching for a year (a key's bytes never change).
 */
function serveFile(runtime: Runtime, store: MediaStore): RequestHandler {
  const notFound = () => new ServiceError('not_found', 'No media file at this address.');
  return async (req, res, next) => {
    const [key, extension, ...more] = String(req.params.file).split('.');
    if (!STORAGE_KEY.test(key) || more.length > 0) throw notFound();
    const asset = await findAssetByStorageKey(runtime.db, key);
    if (!asset || (extension !== undefined && extension !== extensionOf(asset.mimeType))) throw notFound();
    // A key's bytes never change, so the key itself is a strong validator (the app turns Express's ETags off).
    res.set({ 'Content-Type': asset.mimeType, 'X-Content-Type-Options': 'nosniff', ETag: `"${key}"` });
    res.sendFile(
      store.localPath(key),
      { maxAge: 365 * 24 * 60 * 60 * 1000, immutable: true, acceptRanges: true, lastModified: true },
      (error?: Error & { status?: number; headers?: Record<string, string> }) => {
        if (!error || res.headersSent) return;
        for (const header of ['Content-Type', 'X-Content-Type-Options', 'ETag']) res.removeHeader(header);
        if (error.status === 416) {
          // The size, in Content-Range, and the envelope every failure carries.
          res.set(error.headers ?? {});
          return next(
            new ServiceError(
              'range_not_satisfiable',
              'The requested range is outside the file; Content-Range gives its size.',
            ),
          );
        }
        next(error.status === 404 ? notFound() : error);
      },
    );
  };
}
