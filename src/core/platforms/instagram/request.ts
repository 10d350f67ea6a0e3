/**
 * One graph.instagram.com call made through the session: the framework supplies the token (sent as
 * a bearer header, so it never sits in a URL) and decides on retries; this sends the request and
 * turns a non-2xx answer into the PlatformError of its kind.
 */
import { jsonBody, platformRequest } from '../http.ts';
import { PlatformError, type LiveSession } from '../platform-client.ts';
import { instagramAnswerError, type InstagramCallContext } from './errors.ts';
import { withoutSecrets } from '../redaction.ts';

export interface InstagramCall {
  /** The session's label, named like the fake's routes (`media.create`, `media.publish`). */
  label: string;
  context: InstagramCallContext;
  /** What is being sent, for the error message: "the post", "media 1 of 3 (image/jpeg)". */
  subject: string;
  method: 'GET' | 'POST';
  /** The path under the Graph host, without the query. */
  path: string;
  /** Query parameters for a GET, form fields for a POST. */
  params?: Record<string, string>;
  create?: boolean;
}

export type GraphObject = Record<string, unknown>;

export function graphCall(
  session: LiveSession,
  apiBaseUrl: string,
  call: InstagramCall,
  now: () => Date,
): Promise<GraphObject> {
  return session.call(
    call.label,
    (accessToken) => graphRequest(apiBaseUrl, call, accessToken, session.requestTimeoutMs, now),
    { create: call.create ?? false },
  );
}

/** The request itself, for callers outside a publish (the late URL look-up). */
export async function graphRequest(
  apiBaseUrl: string,
  call: Omit<InstagramCall, 'label'>,
  accessToken: string,
  timeoutMs: number,
  now: () => Date,
): Promise<GraphObject> {
  const params = new URLSearchParams(call.params ?? {}).toString();
  const isPost = call.method === 'POST';
  const url = `${apiBaseUrl}${call.path}${!isPost && params ? `?${params}` : ''}`;
  const response = await platformRequest(
    'Instagram',
    url,
    {
      method: call.method,
      headers: {
        authorization: `Bearer ${accessToken}`,
        accept: 'application/json',
        ...(isPost && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(isPost && { body: params }),
    },
    timeoutMs,
  );
  const body = await jsonBody(response);
  if (!response.ok) {
    throw withoutSecrets(instagramAnswerError(response, body, call.context, call.subject, now()), accessToken);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new PlatformError(
      call.create ? 'unknown_outcome' : 'transient',
      `Instagram answered ${response.status} to ${call.subject} with something that is not a JSON object.`,
      { status: response.status },
    );
  }
  return body as GraphObject;
}
