/**
 * Fetches a file named by a URL someone else chose: a media file a post links to (for a live connector
 * that must upload its bytes), or an OAuth client's metadata document. The URL is not ours, so it goes
 * through the webhook SSRF guard: the address actually dialled must be public (unless
 * `allowPrivateUrls`, the same escape webhooks have), every redirect is judged again, and no more than
 * `maxBytes` is read.
 *
 * node:http is imported here although the core otherwise knows no transport (eslint.config.js), for
 * the reason the webhook transport gives: this is an outbound client to a third party, and the guard
 * needs the socket's `lookup` hook, which `fetch` does not expose.
 */
// eslint-disable-next-line no-restricted-imports -- an outbound client (see the header comment).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { BlockedAddressError, blockedRange, guardedLookup, hostOf, parseOutboundUrl } from '../net/outbound-url.ts';

export interface DownloadOptions {
  maxBytes: number;
  timeoutMs: number;
  allowPrivateUrls: boolean;
}

export interface PublicGetOptions extends DownloadOptions {
  /** What the URL is, as messages name it. */
  label: string;
  /** The Accept header sent. */
  accept: string;
  /** Redirects followed (each judged by the guard again); 0 refuses any redirect. */
  maxRedirects: number;
  /** The setting that bounds the size, named in the too-large message when there is one. */
  sizeSetting?: string;
}

export interface PublicFile {
  body: Buffer;
  headers: http.IncomingHttpHeaders;
}

const MEDIA: Omit<PublicGetOptions, keyof DownloadOptions> = {
  label: 'media URL',
  accept: 'image/*, video/*',
  maxRedirects: 3,
  sizeSetting: 'MEDIA_MAX_BYTES',
};

/** Why a download failed, in a sentence for the post's publish result or the person's page. */
export class DownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadError';
  }
}

/** The body of media file `url` (following up to 3 redirects), or a DownloadError saying why not. */
export async function downloadPublicFile(url: string, options: DownloadOptions): Promise<Buffer> {
  return (await getPublicFile(url, { ...options, ...MEDIA })).body;
}

/** The body and headers of `url`'s 200 answer, or a DownloadError saying why not. */
export async function getPublicFile(url: string, options: PublicGetOptions): Promise<PublicFile> {
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const answer = await getOnce(current, options);
    if (answer.kind === 'body') return answer.file;
    if (redirects === options.maxRedirects) {
      throw new DownloadError(
        options.maxRedirects === 0
          ? `${options.label} ${url} answered a redirect, which is not followed`
          : `${options.label} ${url} redirects more than ${options.maxRedirects} times`,
      );
    }
    current = new URL(answer.location, current).toString();
  }
}

type Answer = { kind: 'body'; file: PublicFile } | { kind: 'redirect'; location: string };

function getOnce(url: string, options: PublicGetOptions): Promise<Answer> {
  const { label } = options;
  const parsed = parseOutboundUrl(url);
  if (typeof parsed === 'string') return Promise.reject(new DownloadError(`${label} ${url}: ${parsed}`));
  const host = hostOf(parsed);
  const guarded = !options.allowPrivateUrls;
  // Node dials an IP literal without calling `lookup`, so the guard judges literals here.
  if (guarded && net.isIP(host) !== 0) {
    const range = blockedRange(host);
    if (range !== null) return Promise.reject(refused(label, url, new BlockedAddressError(host, range)));
  }
  return new Promise<Answer>((resolve, reject) => {
    const request = (parsed.protocol === 'https:' ? https : http).get(parsed, {
      timeout: options.timeoutMs,
      headers: { 'user-agent': 'content-publishing-service/0.1', accept: options.accept },
      ...(guarded ? { lookup: guardedLookup } : {}),
    });
    const deadline = setTimeout(
      () => fail(new DownloadError(`${label} ${url} did not answer within ${options.timeoutMs} ms`)),
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
          ? refused(label, url, error)
          : new DownloadError(
              `${label} ${url} could not be fetched (${(error as NodeJS.ErrnoException).code ?? error.message})`,
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
        return fail(new DownloadError(`${label} ${url} answered HTTP ${status}`));
      }
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > options.maxBytes) return fail(tooLarge(url, options));
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > options.maxBytes) return fail(tooLarge(url, options));
        chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(deadline);
        resolve({ kind: 'body', file: { body: Buffer.concat(chunks), headers: response.headers } });
      });
      response.on('error', fail);
    });
  });
}

const refused = (label: string, url: string, error: BlockedAddressError) =>
  new DownloadError(
    `${label} ${url} was refused: it reaches ${error.address}, a ${error.range} address; it must be on a public host`,
  );

const tooLarge = (url: string, { label, maxBytes, sizeSetting }: PublicGetOptions) =>
  new DownloadError(`${label} ${url} is larger than ${maxBytes} bytes${sizeSetting ? ` (${sizeSetting})` : ''}`);
