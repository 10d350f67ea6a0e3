import type { Client } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import net from 'node:net';
import { ERROR_CODES } from '../../src/core/errors.ts';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { readReply, type TestServer } from '../helpers/http.ts';
import { errorEnvelopeProblems, errorObjectProblems } from '../helpers/rest-expect.ts';
import type { McpClientName } from './world.ts';

/** One generated HTTP request. */
export interface FuzzRequest {
  /** The route it aims at, for the per-endpoint counts. */
  endpoint: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What was done to a valid request, for the counterexample. */
  mutation: string;
  /** The answer the spec fixes for this request, when the generator knows it (a bad key, a foreign id, an oversized body). */
  expected?: { status: number; code?: string };
}

/** Prints a request readably in a counterexample: long bodies cut, so a 1 MB value does not flood the log. */
export function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? ''
      : ` body(${request.body.length} B)=${JSON.stringify(request.body.toString('utf8').slice(0, 300))}`;
  const path = request.path.length > 300 ? `${request.path.slice(0, 300)}…(${request.path.length})` : request.path;
  return `${request.method} ${path} [${request.mutation}] headers=${JSON.stringify(request.headers).slice(0, 400)}${body}`;
}

/** Gives a request fast-check's printing hook, so counterexamples show the summary above. */
export function printable<T extends FuzzRequest>(request: T): T {
  return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
}

export interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Sends the request as generated (fetch adds nothing but its usual headers: no Content-Type is invented for a Buffer body). */
export async function send(server: TestServer, request: FuzzRequest): Promise<Reply> {
  // Not JSON (a page, a file) comes back as text; the checks below say whether that is allowed.
  return readReply(
    await server.request(request.path, { method: request.method, headers: request.headers, body: request.body }),
  );
}

/** A JSON-RPC error object, the form the MCP transport answers its own protocol errors in. */
function isJsonRpcError(body: unknown): boolean {
  const b = body as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
  return b?.jsonrpc === '2.0' && typeof b.error?.code === 'number' && typeof b.error.message === 'string';
}

/** Codes whose failures may carry `details`: the schema's invalid_body (a JSON parse failure has none) and the brand profile's 422. */
const detailsFor = (code: unknown): boolean | 'optional' =>
  code === 'invalid_body' ? 'optional' : code === 'unprocessable_entity' ? 'optional' : false;

/**
 * Everything wrong with an answer, per the error and rate-limit contract (none when it is right): never a
 * 5xx; a 4xx in the envelope with the status its code has in the one table; a 429 in its own shape
 * with Retry-After; a 405 with Allow. /mcp may also answer the MCP transport's JSON-RPC errors.
 */
export function replyProblems(request: FuzzRequest, reply: Reply): string[] {
  const problems: string[] = [];
  if (reply.status >= 500) problems.push(`answered ${reply.status}: ${JSON.stringify(reply.body)?.slice(0, 300)}`);
  if (request.expected) {
    const code = (reply.body as { error?: { code?: unknown } } | undefined)?.error?.code;
    if (
      reply.status !== request.expected.status ||
      (request.expected.code !== undefined && code !== request.expected.code)
    ) {
      problems.push(
        `expected ${request.expected.status} ${request.expected.code ?? ''}, got ${reply.status} ${JSON.stringify(reply.body)?.slice(0, 300)}`,
      );
    }
  }
  if (reply.status < 400 || reply.status >= 500) return problems;
  if (request.method === 'HEAD') return problems;
  if (reply.status === 429) return [...problems, ...rateLimitProblems(reply)];
  if (request.path.startsWith('/mcp') && isJsonRpcError(reply.body)) return problems;
  const code = (reply.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  problems.push(...errorEnvelopeProblems(reply.body, { details: detailsFor(code) }));
  if (typeof code === 'string') {
    if (!(ERROR_CODES as readonly string[]).includes(code)) problems.push(`unknown code ${code}`);
    else if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== reply.status)
      problems.push(`code ${code} with status ${reply.status}`);
  }
  if (!reply.headers.get('content-type')?.startsWith('application/json'))
    problems.push(`error Content-Type ${reply.headers.get('content-type')}`);
  if (reply.status === 405 && !reply.headers.get('allow')) problems.push('405 without Allow');
  return problems;
}

/** The 429 body: `{object, type, message, retry_after}` and nothing else, plus a Retry-After header. */
export function rateLimitProblems(reply: Reply): string[] {
  const body = reply.body as Record<string, unknown>;
  const problems: string[] = [];
  const keys = Object.keys(body ?? {}).sort();
  if (JSON.stringify(keys) !== JSON.stringify(['message', 'object', 'retry_after', 'type']))
    problems.push(`429 keys [${keys.join(', ')}]`);
  if (body?.object !== 'error' || body?.type !== 'rate_limit_exceeded')
    problems.push(`429 body ${JSON.stringify(body)}`);
  if (typeof body?.message !== 'string' || body.message.length === 0) problems.push('429 without a message');
  if (!Number.isInteger(body?.retry_after) || (body.retry_after as number) < 1)
    problems.push(`retry_after ${JSON.stringify(body?.retry_after)}`);
  if (reply.headers.get('retry-after') !== String(body?.retry_after))
    problems.push(`Retry-After ${reply.headers.get('retry-after')}`);
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    if (!/^\d+$/.test(reply.headers.get(header) ?? '')) problems.push(`429 without ${header}`);
  }
  return problems;
}

/** One generated tool call. */
export interface FuzzToolCall {
  tool: string;
  /** Which client makes the call: A's key, or one that fails authentication. */
  client: McpClientName;
  /** Tool arguments; anything but an object exercises the protocol's own validation. */
  args: unknown;
  mutation: string;
  /** The tool error code the spec fixes for this call, when known. */
  expectedCode?: string;
}

export function printableCall(call: FuzzToolCall): FuzzToolCall {
  return Object.assign(call, {
    [fc.toStringMethod]: () => {
      let args: string;
      try {
        args = JSON.stringify(call.args) ?? String(call.args);
      } catch {
        args = '(too deeply nested to print)';
      }
      return `${call.tool} as ${call.client} [${call.mutation}] args(${args.length})=${args.slice(0, 400)}`;
    },
  });
}

export interface ToolOutcome {
  /** The tool result, or the protocol error the SDK threw. */
  result?: { isError?: boolean; content?: unknown; structuredContent?: unknown };
  protocolError?: { code?: unknown; message?: unknown };
}

/** A tool error's body, `{error:{…}}`, read from its text (errors carry no structuredContent). */
export function toolErrorBody(result: NonNullable<ToolOutcome['result']>): { error?: { code?: unknown } } | undefined {
  if (result.isError !== true) return undefined;
  const content = result.content as Array<{ text?: string }> | undefined;
  try {
    return JSON.parse(content?.[0]?.text ?? 'null') as { error?: { code?: unknown } } | undefined;
  } catch {
    return undefined;
  }
}

export async function callToolRaw(client: Client, call: FuzzToolCall): Promise<ToolOutcome> {
  try {
    const result = await client.request({
      method: 'tools/call',
      params: { name: call.tool, arguments: call.args as Record<string, unknown> },
    });
    return { result };
  } catch (error) {
    return { protocolError: error as { code?: unknown; message?: unknown } };
  }
}

/** The JSON-RPC code for invalid params: the only protocol error a tools/call may end in (never -32603, internal). */
const INVALID_PARAMS = -32602;

/**
 * Everything wrong with a tool call's outcome: a success's text block holds the same JSON as
 * structuredContent; a failure has no structuredContent, and its text is `{error:{code,message,docs_url}}` (plus details for a schema
 * failure, retry_after for a rate limit), with a known code that is never internal.
 */
export function toolProblems(call: FuzzToolCall, outcome: ToolOutcome): string[] {
  if (outcome.protocolError) {
    const { code, message } = outcome.protocolError;
    return code === INVALID_PARAMS ? [] : [`protocol error ${String(code)}: ${String(message)}`];
  }
  const result = outcome.result!;
  const problems: string[] = [];
  const content = result.content as Array<{ type?: string; text?: string }> | undefined;
  if (!Array.isArray(content) || content.length !== 1 || content[0].type !== 'text')
    problems.push(`content is ${JSON.stringify(content)?.slice(0, 200)}`);
  else if (result.isError === true) {
    if (result.structuredContent !== undefined) problems.push('a tool error carries structuredContent');
  } else if (JSON.stringify(JSON.parse(content[0].text ?? 'null')) !== JSON.stringify(result.structuredContent))
    problems.push('text and structuredContent differ');
  const body = toolErrorBody(result);
  const error = body?.error;
  const code = error?.code;
  if (call.expectedCode !== undefined && (result.isError !== true || code !== call.expectedCode)) {
    problems.push(
      `expected tool error ${call.expectedCode}, got ${JSON.stringify(body ?? result.structuredContent)?.slice(0, 300)}`,
    );
  }
  if (result.isError !== true) return problems;
  const top = Object.keys(body ?? {});
  if (top.length !== 1 || top[0] !== 'error') problems.push(`tool error keys [${top.join(', ')}]`);
  const extraKeys = code === 'rate_limit_exceeded' ? ['retry_after'] : [];
  problems.push(...errorObjectProblems(error, { details: detailsFor(code), extraKeys }));
  if (code === 'internal' || !(ERROR_CODES as readonly string[]).includes(code as string))
    problems.push(`tool error code ${String(code)}: ${JSON.stringify(error)}`);
  return problems;
}

/** What came back on a raw socket: the status line's code (none if the server closed without answering) and the body. */
export interface RawReply {
  status: number | undefined;
  body: unknown;
  bodyText: string;
}

/** Writes the bytes, half-closes, and reads until the server closes the connection. */
export function sendRaw(server: TestServer, bytes: Buffer): Promise<RawReply> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that resets the connection after answering (or instead of answering) is judged by what it sent.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      const split = text.indexOf('\r\n\r\n');
      const head = split >= 0 ? text.slice(0, split) : text;
      const raw = split >= 0 ? text.slice(split + 4) : '';
      const bodyText = /^transfer-encoding:\s*chunked/im.test(head) ? dechunk(raw) : raw;
      let body: unknown = bodyText;
      try {
        body = bodyText ? JSON.parse(bodyText) : undefined;
      } catch {
        // chunked or not JSON; judged as text
      }
      resolve({ status: status === undefined ? undefined : Number(status), body, bodyText });
    });
    socket.end(bytes);
  });
}

/**
 * A raw request's answer: never a 5xx; an answer with a body (the app's) is a JSON error envelope
 * or a success. Node's parser answers framing errors with a bare 400 or 431 and no body.
 */
export function rawReplyProblems(reply: RawReply): string[] {
  if (reply.status === undefined) return [];
  if (reply.status >= 500) return [`answered ${reply.status}: ${reply.bodyText.slice(0, 300)}`];
  if (reply.status < 400 || reply.bodyText === '') return [];
  return errorEnvelopeProblems(reply.body, { details: 'optional' });
}

/** The payload of a chunked body (size lines in hex, a zero-size chunk at the end). */
function dechunk(raw: string): string {
  let out = '';
  let rest = raw;
  for (;;) {
    const line = rest.indexOf('\r\n');
    const size = line >= 0 ? parseInt(rest.slice(0, line), 16) : NaN;
    if (!(size > 0)) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}
