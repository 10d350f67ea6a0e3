/**
 * The two kinds of LinkedIn request a publish makes, each run through `session.call` so that the
 * framework supplies the token and applies its retry rules: versioned /rest calls, and PUTs of media
 * bytes to the upload URLs LinkedIn hands out.
 */
import { jsonBody, platformRequest } from '../http.ts';
import type { LiveSession } from '../platform-client.ts';
import { linkedInError, type LinkedInCallSubject } from './errors.ts';
import { withoutSecrets } from '../redaction.ts';

/** Where the API lives and which monthly version of it the service speaks. */
export interface LinkedInApp {
  apiBaseUrl: string;
  version: string;
}

export interface LinkedInAnswer {
  headers: Headers;
  /** The JSON body, or null when there is none (a 201 create, a finalize). */
  body: unknown;
}

export class LinkedInApi {
  constructor(
    private readonly app: LinkedInApp,
    private readonly session: LiveSession,
  ) {}

  /** One /rest call; a non-2xx answer throws its PlatformError. */
  rest(
    label: string,
    request: { method: 'GET' | 'POST'; path: string; json?: unknown; subject: LinkedInCallSubject },
    options?: { create?: boolean },
  ): Promise<LinkedInAnswer> {
    return this.session.call(
      label,
      (accessToken) =>
        this.send(
          accessToken,
          `${this.app.apiBaseUrl}${request.path}`,
          {
            method: request.method,
            headers: {
              authorization: `Bearer ${accessToken}`,
              'linkedin-version': this.app.version,
              'x-restli-protocol-version': '2.0.0',
              ...(request.json !== undefined && { 'content-type': 'application/json' }),
            },
            ...(request.json !== undefined && { body: JSON.stringify(request.json) }),
          },
          request.subject,
        ),
      options,
    );
  }

  /**
   * PUTs bytes to an upload URL LinkedIn answered. The image upload wants the bearer token, but the
   * URL comes from an answer, so the token only goes to LinkedIn's own hosts (or the configured API's
   * origin, which is where the fake serves them).
   */
  upload(label: string, uploadUrl: string, bytes: Buffer, options: { bearer: boolean }): Promise<LinkedInAnswer> {
    return this.session.call(label, (accessToken) =>
      this.send(
        accessToken,
        uploadUrl,
        {
          method: 'PUT',
          headers: {
            'content-type': 'application/octet-stream',
            ...(options.bearer && this.isLinkedInHost(uploadUrl) && { authorization: `Bearer ${accessToken}` }),
          },
          // A Buffer's memory is an ArrayBuffer; said so that the DOM library's fetch types (the MCP App views' check) accept it.
          body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) as Uint8Array<ArrayBuffer>,
        },
        'media',
      ),
    );
  }

  private async send(
    accessToken: string,
    url: string,
    init: RequestInit,
    subject: LinkedInCallSubject,
  ): Promise<LinkedInAnswer> {
    try {
      const response = await platformRequest('LinkedIn', url, init, this.session.requestTimeoutMs);
      const body = await jsonBody(response);
      if (response.status < 200 || response.status > 299) {
        throw linkedInError(response, body, subject, this.app.version);
      }
      return { headers: response.headers, body };
    } catch (error) {
      throw withoutSecrets(error, accessToken);
    }
  }

  private isLinkedInHost(url: string): boolean {
    try {
      const target = new URL(url);
      if (target.origin === new URL(this.app.apiBaseUrl).origin) return true;
      return target.protocol === 'https:' && /(^|\.)linkedin\.com$/.test(target.hostname);
    } catch {
      return false;
    }
  }
}
