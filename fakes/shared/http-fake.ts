import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import type { FakeClock } from './clock.ts';

export interface UploadedFile {
  /** Empty when the part named none. */
  filename: string;
  mimeType: string;
  bytes: Buffer;
}

export type RequestBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'invalid-json'; text: string }
  | { kind: 'form'; fields: Record<string, string> }
  | { kind: 'multipart'; fields: Record<string, string>; files: Record<string, UploadedFile> }
  | { kind: 'invalid-multipart'; error: string }
  | { kind: 'binary'; bytes: Buffer; contentType: string };

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  params: Record<string, string>;
  body: RequestBody;
}

export type Reply =
  | {
      status: number;
      json?: unknown;
      text?: string;
      headers?: Record<string, string>;
      /** This call stored a post: what `creates()` counts. */
      createdPost?: boolean;
    }
  /** Closes the socket without any answer, the way a proxy or a crash loses a response. */
  | { drop: true; createdPost?: boolean };

export type Handler = (request: FakeRequest) => Reply | Promise<Reply>;

export interface LoggedRequest {
  /** The fake's clock when the request arrived. */
  at: number;
  /** The route's name (`tweets.create`, `posts.create`, …), or null when no route matched. */
  route: string | null;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** JSON or form as parsed; multipart fields with file sizes; raw bytes as `{ bytes: n }`. */
  body: unknown;
  /** null while in flight, and for a dropped connection. */
  status: number | null;
  dropped: boolean;
  createdPost: boolean;
  responseBody?: unknown;
}

/** The request log, with the questions tests ask of it. */
export class RequestLog {
  readonly entries: LoggedRequest[] = [];

  /** Calls that stored a post, answered or dropped: "exactly one create" is `creates().length === 1`. */
  creates(): LoggedRequest[] {
    return this.entries.filter((entry) => entry.createdPost);
  }

  /** Every call to a route, whatever its answer. */
  calls(route: string): LoggedRequest[] {
    return this.entries.filter((entry) => entry.route === route);
  }

  last(route?: string): LoggedRequest | undefined {
    const matching = route === undefined ? this.entries : this.calls(route);
    return matching[matching.length - 1];
  }

  clear(): void {
    this.entries.length = 0;
  }
}

/**
 * Failures scripted per route: the next N calls answer a canned reply before any check runs, or the
 * next N post creations store the post and then drop the connection.
 */
export class FaultScript {
  private readonly replies = new Map<string, Array<() => Reply>>();
  private readonly drops = new Map<string, number>();
  private readonly stalls = new Map<string, number>();
  private readonly holds = new Map<string, Array<Promise<void>>>();

  failNext(route: string, count: number, reply: () => Reply): void {
    const queue = this.replies.get(route) ?? [];
    for (let i = 0; i < count; i++) queue.push(reply);
    this.replies.set(route, queue);
  }

  dropAfterStore(route: string, count: number): void {
    this.drops.set(route, (this.drops.get(route) ?? 0) + count);
  }

  /** The next `count` calls to `route` are logged and never answered: a platform that hangs mid-step. */
  stallNext(route: string, count: number): void {
    this.stalls.set(route, (this.stalls.get(route) ?? 0) + count);
  }

  /**
   * The next call to `route` is logged, then held without an answer until `released` resolves, and
   * handled as usual after: a platform slow to answer (its status stays null while held).
   */
  holdNext(route: string, released: Promise<void>): void {
    const queue = this.holds.get(route) ?? [];
    queue.push(released);
    this.holds.set(route, queue);
  }

  /** What this call must wait for before it is handled, consumed; undefined when it goes at once. */
  takeHold(route: string): Promise<void> | undefined {
    return this.holds.get(route)?.shift();
  }

  /** Whether this call must hang, consumed. */
  takeStall(route: string): boolean {
    const pending = this.stalls.get(route) ?? 0;
    if (pending === 0) return false;
    this.stalls.set(route, pending - 1);
    return true;
  }

  /** The scripted reply for this call, consumed; undefined when none is pending. */
  takeReply(route: string): Reply | undefined {
    return this.replies.get(route)?.shift()?.();
  }

  /** Whether this stored post's answer must be lost, consumed. */
  takeDrop(route: string): boolean {
    const pending = this.drops.get(route) ?? 0;
    if (pending === 0) return false;
    this.drops.set(route, pending - 1);
    return true;
  }

  reset(): void {
    this.replies.clear();
    this.drops.clear();
    this.stalls.clear();
    this.holds.clear();
  }
}

/** A route's name, or a function naming the call when one path serves several operations. */
export type RouteName = string | ((request: FakeRequest) => string);

interface Route {
  method: string;
  segments: string[];
  name: RouteName;
  handler: Handler;
}

/** A tiny router on node:http: literal segments and `:param` segments, matched in the order added. */
export class FakeRouter {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, name: RouteName, handler: Handler): this {
    this.routes.push({ method, segments: pattern.split('/').filter(Boolean), name, handler });
    return this;
  }

  match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    const parts = path.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const matches = route.segments.every((segment, i) => {
        if (segment.startsWith(':')) {
          params[segment.slice(1)] = safeDecode(parts[i]!);
          return true;
        }
        return segment === parts[i];
      });
      if (matches) return { route, params };
    }
    return undefined;
  }
}

export interface FakeServerOptions {
  router: FakeRouter;
  clock: FakeClock;
  log: RequestLog;
  faults: FaultScript;
  /** The platform's answer for a path it does not serve. */
  notFound: (request: FakeRequest) => Reply;
  port?: number;
  host?: string;
}

export interface RunningFakeServer {
  url: string;
  close(): Promise<void>;
}

export async function startFakeServer(options: FakeServerOptions): Promise<RunningFakeServer> {
  const server = createServer((req, res) => {
    handle(options, req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ fakeError: String(error) }));
      }
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(options: FakeServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readAll(req);
  const url = new URL(req.url ?? '/', 'http://fake.invalid');
  const headers = flattenHeaders(req);
  const method = req.method ?? 'GET';
  const matched = options.router.match(method, url.pathname);
  const request: FakeRequest = {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    params: matched?.params ?? {},
    body: await parseBody(headers['content-type'] ?? '', raw),
  };
  const name = matched ? routeName(matched.route.name, request) : null;
  const entry: LoggedRequest = {
    at: options.clock.now(),
    route: name,
    method,
    path: request.path,
    query: request.query,
    headers,
    body: describeBody(request.body),
    status: null,
    dropped: false,
    createdPost: false,
  };
  options.log.entries.push(entry);
  // Held open with no answer until the client gives up or the fake closes (its status stays null).
  if (name !== null && options.faults.takeStall(name)) return;
  const held = name === null ? undefined : options.faults.takeHold(name);
  if (held) await held;

  const reply =
    matched && name !== null
      ? (options.faults.takeReply(name) ?? (await matched.route.handler(request)))
      : options.notFound(request);
  entry.createdPost = reply.createdPost ?? false;
  if ('drop' in reply) {
    entry.dropped = true;
    req.socket.destroy();
    return;
  }
  entry.status = reply.status;
  const responseHeaders: Record<string, string> = { ...reply.headers };
  let payload = '';
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    responseHeaders['content-type'] ??= 'application/json';
    entry.responseBody = reply.json;
  } else if (reply.text !== undefined) {
    payload = reply.text;
    responseHeaders['content-type'] ??= 'text/plain; charset=utf-8';
    entry.responseBody = reply.text;
  }
  res.writeHead(reply.status, responseHeaders);
  res.end(payload);
}

function routeName(name: RouteName, request: FakeRequest): string {
  return typeof name === 'string' ? name : name(request);
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

async function parseBody(contentType: string, raw: Buffer): Promise<RequestBody> {
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  if (raw.length === 0 && !mime.startsWith('multipart/')) return { kind: 'none' };
  if (mime === 'application/json') {
    try {
      return { kind: 'json', value: JSON.parse(raw.toString('utf8')) };
    } catch {
      return { kind: 'invalid-json', text: raw.toString('utf8') };
    }
  }
  if (mime === 'application/x-www-form-urlencoded') {
    return { kind: 'form', fields: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))) };
  }
  if (mime === 'multipart/form-data') return parseMultipart(contentType, raw);
  return { kind: 'binary', bytes: raw, contentType };
}

function parseMultipart(contentType: string, raw: Buffer): Promise<RequestBody> {
  return new Promise((resolve) => {
    const fields: Record<string, string> = {};
    const files: Record<string, UploadedFile> = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType } });
    } catch (error) {
      resolve({ kind: 'invalid-multipart', error: String(error) });
      return;
    }
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        files[name] = { filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) };
      });
    });
    parser.on('close', () => resolve({ kind: 'multipart', fields, files }));
    parser.on('error', (error) => resolve({ kind: 'invalid-multipart', error: String(error) }));
    parser.end(raw);
  });
}

function describeBody(body: RequestBody): unknown {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'json':
      return body.value;
    case 'invalid-json':
      return body.text;
    case 'form':
      return body.fields;
    case 'multipart':
      return {
        fields: body.fields,
        files: Object.fromEntries(
          Object.entries(body.files).map(([name, file]) => [
            name,
            { filename: file.filename, mimeType: file.mimeType, bytes: file.bytes.length },
          ]),
        ),
      };
    case 'invalid-multipart':
      return { invalidMultipart: body.error };
    case 'binary':
      return { bytes: body.bytes.length };
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The bearer token of a request, or undefined when the header is missing or of another scheme. */
export function bearerToken(request: FakeRequest): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/** A JSON object body, or undefined for anything else (no body, invalid JSON, an array, a form). */
export function jsonObject(request: FakeRequest): Record<string, unknown> | undefined {
  const { body } = request;
  if (body.kind !== 'json' || typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) {
    return undefined;
  }
  return body.value as Record<string, unknown>;
}

/** A 302 to `uri` with `params` added to its query, the way an authorization server answers. */
export function redirectTo(uri: string, params: Record<string, string>): Reply {
  const target = new URL(uri);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return { status: 302, headers: { location: target.toString() } };
}

/** `Basic base64(id:secret)` decoded, or undefined when the header is missing or malformed. */
export function basicCredentials(request: FakeRequest): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(request.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** An absolute http(s) URL without a fragment, the only kind an authorization server redirects to. */
export function isRedirectableUri(value: string | undefined): value is string {
  if (!value) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hash === '';
  } catch {
    return false;
  }
}
