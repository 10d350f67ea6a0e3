/**
 * One call to a container API's Graph host (graph.instagram.com, graph.threads.net) made through the
 * session: the framework supplies the token and decides on retries; this sends the request and turns
 * a non-2xx answer into the PlatformError of its kind, the token masked out of it.
 */
import type { Platform } from '../../../../db/schema/index.ts';
import { jsonBody, platformRequest } from '../http.ts';
import { PlatformError, type LiveSession } from '../platform-client.ts';
import { withoutSecrets } from '../redaction.ts';
import { containerApiError, type ContainerApiRefusals, type ContainerCallContext } from './errors.ts';

/** Which container API a Graph host serves: its platform, where it takes the token, how it words refusals. */
export interface GraphApi {
  platform: Platform;
  /**
   * Where the token goes. `header`: a bearer header (so it never sits in a URL), a GET's parameters
   * in the query and a POST's as a form (Instagram). `query`: the `access_token` parameter with every
   * other parameter in the query, as Threads documents each call.
   */
  tokenIn: 'header' | 'query';
  refusals: ContainerApiRefusals;
}

export type GraphHost = GraphApi & { apiBaseUrl: string };

export interface GraphCall {
  /** The session's label, named like the fake's routes (`media.create`, `threads.publish`). */
  label: string;
  context: ContainerCallContext;
  /** What is being sent, for the error message: "the post", "media 1 of 3 (image/jpeg)". */
  subject: string;
  method: 'GET' | 'POST';
  /** The path under the Graph host, without the query. */
  path: string;
  params?: Record<string, string>;
  create?: boolean;
}

export type GraphObject = Record<string, unknown>;

export function graphCall(
  session: LiveSession,
  host: GraphHost,
  call: GraphCall,
  now: () => Date,
): Promise<GraphObject> {
  return session.call(
    call.label,
    (accessToken) => graphRequest(host, call, accessToken, session.requestTimeoutMs, now),
    { create: call.create ?? false },
  );
}

/** The request itself, for callers outside a publish (the profile read, the late URL look-up). */
export async function graphRequest(
  host: GraphHost,
  call: Omit<GraphCall, 'label'>,
  accessToken: string,
  timeoutMs: number,
  now: () => Date,
): Promise<GraphObject> {
  const { name } = host.refusals;
  const response = await platformRequest(name, ...requestFor(host, call, accessToken), timeoutMs);
  const body = await jsonBody(response);
  if (!response.ok) {
    const error = containerApiError(host.refusals, response, body, call.context, call.subject, now());
    throw withoutSecrets(error, accessToken);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new PlatformError(
      call.create ? 'unknown_outcome' : 'transient',
      `${name} answered ${response.status} to ${call.subject} with something that is not a JSON object.`,
      { status: response.status },
    );
  }
  return body as GraphObject;
}

function requestFor(host: GraphHost, call: Omit<GraphCall, 'label'>, accessToken: string): [string, RequestInit] {
  const url = `${host.apiBaseUrl}${call.path}`;
  const accept = { accept: 'application/json' };
  if (host.tokenIn === 'query') {
    const query = new URLSearchParams({ ...call.params, access_token: accessToken }).toString();
    return [`${url}?${query}`, { method: call.method, headers: accept }];
  }
  const params = new URLSearchParams(call.params ?? {}).toString();
  const authorization = `Bearer ${accessToken}`;
  if (call.method === 'GET')
    return [params ? `${url}?${params}` : url, { method: 'GET', headers: { authorization, ...accept } }];
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  return [url, { method: 'POST', headers: { authorization, ...accept, ...form }, body: params }];
}
