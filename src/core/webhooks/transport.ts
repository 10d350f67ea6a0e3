/**
 * The webhook transport: signing, the SSRF guard and one HTTP attempt. The worker, the test
 * endpoint and the subscription API call only these.
 *
 * node:http is imported here although the core otherwise knows no transport (eslint.config.js):
 * the contract places the outbound webhook client in the core, it speaks HTTP to customers, not
 * to our callers, and nothing here knows Express, MCP or our own status codes. The exception is
 * this one import, marked where it is made.
 */
import { StringDecoder } from 'node:string_decoder';
// eslint-disable-next-line no-restricted-imports -- the outbound webhook client (see the header comment).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AttemptResult } from './attempt-result.ts';
import { boundedMemo } from '../bounded-memo.ts';
import { BlockedAddressError, blockedRange, guardedLookup, hostOf, parseOutboundUrl } from '../net/outbound-url.ts';

export { signWebhook, newSigningSecret } from './signing.ts';
export { checkWebhookUrl } from '../net/outbound-url.ts';
export { isDelivered } from './delivery/policy.ts';
export type { AttemptResult } from './attempt-result.ts';

export interface SendOptions {
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** Cuts the attempt short (a shutdown); it then ends as a failure like any other. */
  signal?: AbortSignal;
}

/** The log keeps the first 8,192 bytes of a response body, so no more is ever read. */
const RESPONSE_BODY_LIMIT = 8_192;
const USER_AGENT = 'content-publishing-service-webhooks/0.1 (+Standard Webhooks v1)';

/**
 * Keep-alive agents, because a delivery worker posts many times to the same few hosts. Idle
 * sockets do not hold the process open: Node's Agent `unref()`s a socket when it goes back to the
 * pool and `ref()`s it when reused. An idle socket is closed after 4 s (or earlier when the server
 * announces a shorter `Keep-Alive: timeout`), under the 5 s most servers keep an idle connection,
 * so a reused socket is rarely one the server is closing at that moment.
 *
 * Guarded and unguarded sends use separate agents: an agent pools sockets by host and port only,
 * so a socket opened without the guard must never serve a guarded send.
 */
const agents = new Map<string, http.Agent>();
function agentFor(protocol: 'http:' | 'https:', guarded: boolean): http.Agent {
  const key = `${protocol}${guarded ? 'guarded' : 'open'}`;
  let agent = agents.get(key);
  if (!agent) {
    const options: http.AgentOptions = { keepAlive: true, timeout: 4_000, scheduling: 'lifo' };
    agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

const sinceMs = (started: number): number => Math.round(performance.now() - started);
const failed = (started: number, error: string): AttemptResult => ({
  statusCode: 0,
  responseBody: null,
  durationMs: sinceMs(started),
  error,
});

/** What a request needs from a webhook URL, or why it cannot be sent to. */
interface Target {
  protocol: 'http:' | 'https:';
  host: string;
  port: number | undefined;
  path: string;
  ipLiteral: boolean;
}

/** Parsed once per URL: a delivery worker posts to the same few URLs thousands of times a second. */
const parsedTargets = boundedMemo<Target | string>(10_000);
const targetOf = (url: string): Target | string => parsedTargets(url, parseTarget);

function parseTarget(url: string): Target | string {
  const parsed = parseOutboundUrl(url);
  if (typeof parsed === 'string') return parsed;
  const host = hostOf(parsed);
  return {
    protocol: parsed.protocol as Target['protocol'],
    host,
    port: parsed.port === '' ? undefined : Number(parsed.port),
    path: `${parsed.pathname}${parsed.search}`,
    ipLiteral: net.isIP(host) !== 0,
  };
}

/**
 * POSTs `body` to `url` with `headers` (plus content-type and user-agent): one deadline for connect,
 * headers and body, no redirects, the IP actually dialled checked against the guard.
 *
 * Never throws: anything short of a complete response (or of 8,192 bytes of its body) becomes
 * `statusCode` 0 with `error` saying why. A response whose headers arrive in time but whose body
 * does not finish before the deadline is a timeout, not a status (a delivery that has not answered
 * in full by the deadline, 10 s by default, failed); once 8,192 bytes are read the rest is not waited for.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const failure = (error: string): AttemptResult => failed(started, error);

  const target = targetOf(url);
  if (typeof target === 'string') return failure(target);
  const { host } = target;
  const guarded = !options.allowPrivateUrls;
  // Node dials an IP literal without calling `lookup`, so the guard sees literals here.
  if (guarded && target.ipLiteral) {
    const range = blockedRange(host);
    if (range !== null) return failure(new BlockedAddressError(host, range).message);
  }

  const requestHeaders: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(headers)) requestHeaders[name.toLowerCase()] = value;
  requestHeaders['content-type'] = 'application/json';
  requestHeaders['user-agent'] = USER_AGENT;
  requestHeaders['content-length'] = Buffer.byteLength(body, 'utf8');

  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const settle = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };

    // Started before anything is resolved or dialled: one deadline for lookup, connect, headers and body.
    // Node's timers run on the event loop's cached clock and may fire up to a millisecond early:
    // the deadline is re-armed for what is left, so an attempt never fails before its full time.
    let deadline: NodeJS.Timeout;
    const armDeadline = (ms: number) => {
      deadline = setTimeout(() => {
        const left = options.timeoutMs - (performance.now() - started);
        if (left > 0) return armDeadline(Math.ceil(left));
        settle(failure(`timeout after ${options.timeoutMs} ms`));
        request?.destroy();
      }, ms);
    };
    armDeadline(options.timeoutMs);

    const { protocol } = target;
    let request: http.ClientRequest | undefined;
    try {
      request = (protocol === 'https:' ? https : http).request({
        protocol,
        hostname: host,
        port: target.port,
        path: target.path,
        method: 'POST',
        headers: requestHeaders,
        agent: agentFor(protocol, guarded),
        signal: options.signal,
        ...(guarded ? { lookup: guardedLookup } : {}),
      });
    } catch (err) {
      // Thrown before anything is sent, e.g. a header value with a line break in it.
      settle(failure(err instanceof Error ? err.message : String(err)));
      return;
    }

    request.on('error', (err) => settle(failure(describeError(err, host))));
    request.on('response', (response) => {
      // Made at the first byte of a body: most answers (a 204, an empty 200) have none.
      let decoder: StringDecoder | undefined;
      let text = '';
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        const take = Math.min(chunk.length, RESPONSE_BODY_LIMIT - received);
        decoder ??= new StringDecoder('utf8');
        // StringDecoder holds back a character cut at the limit; it is dropped, not shown as U+FFFD.
        text += decoder.write(take === chunk.length ? chunk : chunk.subarray(0, take));
        received += take;
        if (received >= RESPONSE_BODY_LIMIT) {
          settle({
            statusCode: response.statusCode ?? 0,
            responseBody: text,
            durationMs: sinceMs(started),
            error: null,
          });
          // Stop reading: the socket is closed rather than drained, and is not reused.
          request.destroy();
        }
      });
      response.on('end', () =>
        settle({
          statusCode: response.statusCode ?? 0,
          responseBody: text + (decoder?.end() ?? ''),
          durationMs: sinceMs(started),
          error: null,
        }),
      );
      // A body cut short by the peer ends in 'close' (and 'aborted'/'error') without 'end'.
      response.on('error', () => settle(failure('connection reset while reading the response')));
      response.on('close', () => settle(failure('connection closed before the response body ended')));
    });

    // The body as a string, not a Buffer: measured against a raw POST loop on loopback, the
    // transport went from 0.7 to 0.86 of its rate. (Both still leave through one writev with the
    // headers: a request's output waits in a buffer until the agent hands it its socket.)
    request.end(body, 'utf8');
  });
}

/** A one-line reason for the delivery log. */
function describeError(err: Error, host: string): string {
  if (err instanceof BlockedAddressError) return err.message;
  const withCode = err as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] };
  // With happy eyeballs (autoSelectFamily) a name with several addresses fails with an AggregateError.
  const code = withCode.code ?? withCode.errors?.find((e) => e.code)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
    case 'EAI_FAIL':
      return `host ${host} does not resolve`;
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ERR_INVALID_HTTP_RESPONSE':
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_STATUS':
      return `invalid HTTP response: ${err.message}`;
    default:
      if (code && /CERT|TLS|SSL|SELF_SIGNED|VERIFY/.test(code)) return `TLS error: ${err.message}`;
      return code ? `${code}: ${err.message}` : err.message;
  }
}
