/**
 * One graph.threads.net call. The token goes in the `access_token` parameter, as Threads documents
 * every call (never logged: platformRequest logs nothing, and errors leave through withoutSecrets).
 */
import { jsonBody, platformRequest } from '../http.ts';
import { PlatformError, type LiveSession } from '../platform-client.ts';
import { withoutSecrets } from '../redaction.ts';
import { threadsError, type ThreadsCallContext } from './errors.ts';

export interface ThreadsCall {
  /** The session's label, named like the fake's routes (`threads.create`, `threads.publish`). */
  label: string;
  context: ThreadsCallContext;
  /** What is being sent, for the error message. */
  subject: string;
  method: 'GET' | 'POST';
  /** The path under the Graph host, without the query. */
  path: string;
  params?: Record<string, string>;
  create?: boolean;
}

export type GraphObject = Record<string, unknown>;

export function threadsCall(session: LiveSession, apiBaseUrl: string, call: ThreadsCall, now: () => Date) {
  return session.call(
    call.label,
    (accessToken) => threadsRequest(apiBaseUrl, call, accessToken, session.requestTimeoutMs, now),
    { create: call.create ?? false },
  );
}

export async function threadsRequest(
  apiBaseUrl: string,
  call: Omit<ThreadsCall, 'label'>,
  accessToken: string,
  timeoutMs: number,
  now: () => Date,
): Promise<GraphObject> {
  const query = new URLSearchParams({ ...call.params, access_token: accessToken }).toString();
  const response = await platformRequest(
    'Threads',
    `${apiBaseUrl}${call.path}?${query}`,
    { method: call.method, headers: { accept: 'application/json' } },
    timeoutMs,
  );
  const body = await jsonBody(response);
  if (!response.ok) {
    throw withoutSecrets(threadsError(response, body, call.context, call.subject, now()), accessToken);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new PlatformError(
      call.create ? 'unknown_outcome' : 'transient',
      `Threads answered ${response.status} to ${call.subject} with something that is not a JSON object.`,
      { status: response.status },
    );
  }
  return body as GraphObject;
}
