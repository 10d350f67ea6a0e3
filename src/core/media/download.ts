/**
 * Downloads a media file a post links to from elsewhere, for a live connector that must upload its
 * bytes. The URL is the user's, so it goes through the webhook SSRF guard: the address actually
 * dialled must be public (unless `allowPrivateUrls`, the same escape webhooks have), every redirect is
 * judged again, and no more than `maxBytes` is read.
 *
 * node:http is imported here although the core otherwise knows no transport (eslint.config.js), for
 * the reason the webhook transport gives: this is an outbound client to a third party, and the guard
 * needs the socket's `lookup` hook, which `fetch` does not expose.
 */
// eslint-disable-next-line no-restricted-imports -- an outbound client (see the header comment).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { BlockedAddressError, blockedRange, guardedLookup, hostOf, parseWebhookUrl } from '../webhooks/ssrf.ts';

export interface DownloadOptions {
  maxBytes: number;
  timeoutMs: number;
  allowPrivateUrls: boolean;
}

const MAX_REDIRECTS = 3;

/** Why a download failed, in a sentence for the post's publish result. */
export class DownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadError';
  }
}

/** The body of `url` (following up to 3 redirects), or a DownloadError saying why not. */
export async function downloadPublicFile(url: string, options: DownloadOptions): Promise<Buffer> {
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const answer = await getOnce(current, options);
    if (answer.kind === 'body') return answer.body;
    if (redirects === MAX_REDIRECTS)
      throw new DownloadError(`media URL ${url} redirects more than ${MAX_REDIRECTS} times`);
    current = new URL(answer.location, current).toString();
  }
}

type Answer = { kind: 'body'; body: Buffer } | { kind: 'redirect'; location: string };

function getOnce(url: string, options: DownloadOptions): Promise<Answer> {
  const parsed = parseWebhookUrl(url);
  if (typeof parsed === 'string') return Promise.reject(new DownloadError(`media URL ${url}: ${parsed}`));
  const host = hostOf(parsed);
  const guarded = !options.allowPrivateUrls;
  // Node dials an IP literal without calling `lookup`, so the guard judges literals here.
  if (guarded && net.isIP(host) !== 0) {
    const range = blockedRange(host);
    if (range !== null) return Promise.reject(refused(url, new BlockedAddressError(host, range)));
  }
  return new Promise<Answer>((resolve, reject) => {
    const request = (parsed.protocol === 'https:' ? https : http).get(parsed, {
      timeout: options.timeoutMs,
      headers: { 'user-agent': 'content-publishing-service-media/0.1', accept: 'image/*, video/*' },
      ...(guarded ? { lookup: guardedLookup } : {}),
    });
    const deadline = setTimeout(
      () => fail(new DownloadError(`media URL ${url} did not answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const fail = (error: Error) => {
      clearTimeout(deadline);
      request.destroy();
      reject(error);
    };
    request.on('error', (error) =>
      fail(
        error instanceof BlockedAddressError
          ? refused(url, error)
          : new DownloadError(
              `media URL ${url} could not be fetched (${(error as NodeJS.ErrnoException).code ?? error.message})`,
            ),
      ),
    );
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        clearTimeout(deadline);
        return resolve({ kind: 'redirect', location: response.headers.location });
      }
      if (status !== 200) {
        response.resume();
        return fail(new DownloadError(`media URL ${url} answered HTTP ${status}`));
      }
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > options.maxBytes) return fail(tooLarge(url, options.maxBytes));
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > options.maxBytes) return fail(tooLarge(url, options.maxBytes));
        chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(deadline);
        resolve({ kind: 'body', body: Buffer.concat(chunks) });
      });
      response.on('error', fail);
    });
  });
}

const refused = (url: string, error: BlockedAddressError) =>
  new DownloadError(
    `media URL ${url} was refused: it reaches ${error.address}, a ${error.range} address; media must be on a public host`,
  );

const tooLarge = (url: string, maxBytes: number) =>
  new DownloadError(`media URL ${url} is larger than ${maxBytes} bytes (MEDIA_MAX_BYTES)`);
