/**
 * One Graph API call made through the session: the framework supplies the Page token and decides on
 * retries; this paces the call by Meta's usage headers, sends it (the token in the Authorization
 * header, never in a URL), and turns a refusal into the PlatformError of its kind.
 */
import { jsonBody, platformRequest } from '../http.ts';
import { PlatformError, type LiveSession } from '../platform-client.ts';
import { facebookError, type FacebookCallContext } from './errors.ts';
import type { UsageGovernor } from '../meta/usage.ts';
import { withoutSecrets } from '../redaction.ts';

/** Where the Graph API lives, its video host, and the version the service speaks. */
export interface FacebookApp {
  apiBaseUrl: string;
  graphVideoBaseUrl: string;
  graphVersion: string;
}

export interface GraphCall {
  /** The session's label for the call: the Graph route (`feed.create`, `videos.status`), `photos.upload` for an unpublished photo. */
  label: string;
  context: FacebookCallContext;
  /** What is being sent, for the error message: "the post", "photo 2 of 3". */
  subject: string;
  method: 'GET' | 'POST';
  /** Graph, or graph-video for video uploads. */
  host?: 'graph' | 'video';
  /** The path after the version, starting with `/`. */
  path: string;
  query?: Record<string, string>;
  /** Sent form-encoded, as Graph's reference shows its parameters. */
  form?: Record<string, string>;
  create?: boolean;
}

export interface GraphAnswer {
  status: number;
  body: Record<string, unknown>;
}

export class FacebookGraph {
  private readonly pageId: string;

  constructor(
    private readonly app: FacebookApp,
    private readonly session: LiveSession,
    private readonly governor: UsageGovernor,
    private readonly now: () => Date,
  ) {
    this.pageId = session.account.platformUserId;
  }

  async call(call: GraphCall): Promise<GraphAnswer> {
    await this.governor.pace(this.session, this.pageId);
    const base = call.host === 'video' ? this.app.graphVideoBaseUrl : this.app.apiBaseUrl;
    const url = new URL(`${base}/${this.app.graphVersion}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    return this.session.call(
      call.label,
      async (accessToken) => {
        try {
          const response = await platformRequest(
            'Facebook',
            url.toString(),
            {
              method: call.method,
              headers: {
                authorization: `Bearer ${accessToken}`,
                accept: 'application/json',
                ...(call.form && { 'content-type': 'application/x-www-form-urlencoded' }),
              },
              ...(call.form && { body: new URLSearchParams(call.form).toString() }),
            },
            this.session.requestTimeoutMs,
          );
          const body = await jsonBody(response);
          this.governor.observe(response.headers, this.pageId);
          if (!response.ok) throw facebookError(response, body, call.context, call.subject, this.now());
          const object = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
          return { status: response.status, body: object as Record<string, unknown> };
        } catch (error) {
          throw withoutSecrets(error, accessToken);
        }
      },
      { create: call.create ?? false },
    );
  }
}

/**
 * A string id field of a 2xx answer. Missing after the create call, the post exists but cannot be
 * named: `unknown_outcome`; missing elsewhere, `transient`.
 */
export function answerId(
  answer: GraphAnswer,
  field: string,
  what: string,
  kind: 'transient' | 'unknown_outcome',
): string {
  const value = answer.body[field];
  if (typeof value === 'string' && value !== '') return value;
  throw new PlatformError(kind, `Facebook answered ${answer.status} to ${what} without its ${field}.`, {
    status: answer.status,
  });
}
