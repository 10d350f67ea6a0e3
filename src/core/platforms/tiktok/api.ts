/**
 * The requests a TikTok publish makes: JSON calls to the Content Posting API (each run through
 * `session.call`, so the framework supplies the token and applies its retry rules) and PUTs of video
 * chunks to the upload URL TikTok hands out. A call succeeds only when TikTok answers 2xx with error
 * code `ok`; anything else becomes the PlatformError of its kind.
 */
import { platformRequest } from '../http.ts';
import type { LiveSession } from '../platform-client.ts';
import { PlatformError } from '../platform-client.ts';
import { readErrorBody, tiktokError, type TikTokCallSubject } from './errors.ts';
import { withoutSecrets } from '../redaction.ts';

export const TIKTOK = 'TikTok';

/** Where the API lives. */
export interface TikTokApp {
  apiBaseUrl: string;
}

export interface TikTokAnswer {
  status: number;
  /** The answer's `data` object ({} when absent). */
  data: Record<string, unknown>;
  /** The body as sent, for the 64-bit ids JSON.parse would round (see `publicPostIds`). */
  raw: string;
}

export interface TikTokCall {
  /** The session's label, named like the fake's routes (`video.init`, `status.fetch`). */
  label: string;
  /** The API path, e.g. `/v2/post/publish/video/init/`. */
  path: string;
  json?: unknown;
  subject: TikTokCallSubject;
  create?: boolean;
}

/** One JSON call to TikTok's API with `accessToken`, outside any session (the late-URL pass uses it). */
export async function tiktokJson(
  app: TikTokApp,
  accessToken: string,
  call: Omit<TikTokCall, 'label' | 'create'> & { method?: 'GET' | 'POST' },
  timeoutMs: number,
  now: () => Date,
): Promise<TikTokAnswer> {
  try {
    const response = await platformRequest(
      TIKTOK,
      `${app.apiBaseUrl}${call.path}`,
      {
        method: call.method ?? 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          ...(call.json !== undefined && { 'content-type': 'application/json; charset=UTF-8' }),
        },
        ...(call.json !== undefined && { body: JSON.stringify(call.json) }),
      },
      timeoutMs,
    );
    const raw = await response.text().catch(() => '');
    const body = parseJson(raw);
    if (response.ok && readErrorBody(body).code === 'ok') {
      const data = (body as { data?: unknown }).data;
      return {
        status: response.status,
        data: typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {},
        raw,
      };
    }
    if (response.ok && body === undefined) {
      throw new PlatformError(
        'transient',
        `TikTok answered ${response.status} to ${call.path} with something that is not JSON.`,
        {
          status: response.status,
        },
      );
    }
    throw tiktokError(response, body, call.subject, now());
  } catch (error) {
    throw withoutSecrets(error, accessToken);
  }
}

/** The same calls bound to a publish's session. */
export class TikTokApi {
  constructor(
    private readonly app: TikTokApp,
    private readonly session: LiveSession,
    private readonly now: () => Date,
  ) {}

  call(call: TikTokCall): Promise<TikTokAnswer> {
    return this.session.call(
      call.label,
      (accessToken) => tiktokJson(this.app, accessToken, call, this.session.requestTimeoutMs, this.now),
      { create: call.create ?? false },
    );
  }

  /**
   * PUTs one chunk to the upload URL. The URL is pre-signed, so no token goes with it. TikTok answers
   * 206 while chunks remain and 201 once the file is whole.
   */
  uploadChunk(uploadUrl: string, chunk: Buffer, range: { first: number; total: number }, mimeType: string) {
    return this.session.call('video.upload', async () => {
      const last = range.first + chunk.length - 1;
      const response = await platformRequest(
        TIKTOK,
        uploadUrl,
        {
          method: 'PUT',
          headers: {
            'content-type': mimeType,
            'content-range': `bytes ${range.first}-${last}/${range.total}`,
          },
          // A Buffer's memory is an ArrayBuffer; said so that the DOM library's fetch types (the MCP App views' check) accept it.
          body: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) as Uint8Array<ArrayBuffer>,
        },
        this.session.requestTimeoutMs,
      );
      const raw = await response.text().catch(() => '');
      if (response.status === 201 || response.status === 206) return response.status;
      throw tiktokError(response, parseJson(raw), 'media', this.now());
    });
  }
}

/**
 * The ids in `publicaly_available_post_id` (TikTok's spelling), read from the raw body: they are
 * 64-bit integers that JSON.parse would round, and the post URL needs every digit.
 */
export function publicPostIds(raw: string): string[] {
  const list = /"publicaly_available_post_id"\s*:\s*\[([^\]]*)\]/.exec(raw)?.[1];
  if (!list) return [];
  return list
    .split(',')
    .map((item) => item.trim().replace(/^"|"$/g, ''))
    .filter((item) => /^\d+$/.test(item));
}

function parseJson(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
