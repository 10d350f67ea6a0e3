/**
 * One X API call made through the session: the framework supplies the token and decides on retries,
 * this sends the request and turns any non-2xx answer into the PlatformError of its kind.
 */
import { jsonBody, platformRequest } from '../http.ts';
import { PlatformError, type LiveSession } from '../platform-client.ts';
import { xAnswerError, type XCallContext } from './errors.ts';
import { withoutSecrets } from '../redaction.ts';

export interface XCall {
  /** The session's label for the call, named like X's routes (`tweets.create`, `media.append`). */
  label: string;
  context: XCallContext;
  /** What is being sent, for the error message: "the post", "media 1 of 2 (video/mp4)". */
  subject: string;
  method: 'GET' | 'POST';
  url: string;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as multipart/form-data (fetch writes the boundary). */
  form?: FormData;
  create?: boolean;
}

export interface XAnswer {
  status: number;
  body: unknown;
}

export function xCall(session: LiveSession, call: XCall, now: () => Date): Promise<XAnswer> {
  return session.call(
    call.label,
    async (accessToken) => {
      const headers: Record<string, string> = { authorization: `Bearer ${accessToken}` };
      let body: string | FormData | undefined;
      if (call.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(call.json);
      } else if (call.form) {
        body = call.form;
      }
      const response = await platformRequest(
        'X',
        call.url,
        { method: call.method, headers, ...(body !== undefined && { body }) },
        session.requestTimeoutMs,
      );
      const answer = await jsonBody(response);
      if (response.ok) return { status: response.status, body: answer };
      throw withoutSecrets(xAnswerError(response, answer, call.context, call.subject, now()), accessToken);
    },
    { create: call.create ?? false },
  );
}

/** `body.data` as an object, or a PlatformError of `kind` when X answered 2xx without one. */
export function answerData(answer: XAnswer, kind: 'transient' | 'unknown_outcome', what: string) {
  const data = (answer.body as { data?: unknown } | null)?.data;
  if (typeof data === 'object' && data !== null) return data as Record<string, unknown>;
  throw new PlatformError(kind, `X answered ${answer.status} to ${what} without the expected data.`, {
    status: answer.status,
  });
}
