/**
 * A local webhook endpoint for tests: a plain node:http server on loopback that records every
 * request and answers as told.
 *
 *   const receiver = await startReceiver();           // http://127.0.0.1:<port>, answers 200
 *   receiver.respondWith({ status: 500, body: 'boom' });                 // every path
 *   receiver.respondWith({ status: 301, location: '/moved' }, '/hook');  // one path only
 *   receiver.respondWith('hang');   // never answers (the sender's deadline must end it)
 *   receiver.respondWith('reset');  // reads the request, then destroys the socket
 *   await postSomething(`${receiver.url}/hook`);
 *   await receiver.waitForRequests(1);   // for asynchronous senders such as the delivery worker
 *   receiver.requests[0].body            // the raw body, as the signature was computed over it
 *   await receiver.close();
 *
 *   const url = await refusedUrl();   // a loopback URL nobody listens on: connection refused
 *
 * A request is recorded once its body has been read, whatever the behaviour, so a `reset` or
 * `hang` request is still in `requests`.
 */
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export type ReceiverBehaviour =
  | {
      /** Any status: 2xx, 3xx (add `location`), 4xx, 5xx. */
      status: number;
      /** Response body (e.g. `'x'.repeat(100_000)` for an oversized one); empty by default. */
      body?: string;
      /** Sets the Location header, for 3xx answers. */
      location?: string;
      /** Send the status, headers and `body`, then never finish the response (a stalled body). */
      stall?: boolean;
    }
  | 'hang'
  | 'reset';

export interface ReceivedRequest {
  method: string;
  /** The request target as sent, path and query (`/hook?x=1`). */
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body as UTF-8 text. */
  body: string;
  /** The sender's port: equal on two requests when the sender kept the connection alive. */
  remotePort: number;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` (or `http://[::1]:<port>`), no trailing slash. */
  url: string;
  requests: ReceivedRequest[];
  /** Sets the answer for `path` (matched without the query), or for every path without one. */
  respondWith(behaviour: ReceiverBehaviour, path?: string): void;
  /** Resolves with `requests` once at least `count` have arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Closes the server and every connection, hung ones included. */
  close(): Promise<void>;
}

/** Starts a receiver on an ephemeral loopback port; `host` `'::1'` listens on IPv6 loopback instead. */
export async function startReceiver(options: { host?: '127.0.0.1' | '::1' } = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const requests: ReceivedRequest[] = [];
  const byPath = new Map<string, ReceiverBehaviour>();
  let fallback: ReceiverBehaviour = { status: 200 };
  let notify = () => {};

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      requests.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort ?? 0,
      });
      notify();
      const behaviour = byPath.get(path.split('?')[0]!) ?? fallback;
      if (behaviour === 'hang') return;
      if (behaviour === 'reset') {
        req.socket.destroy();
        return;
      }
      res.statusCode = behaviour.status;
      if (behaviour.location !== undefined) res.setHeader('location', behaviour.location);
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      if (behaviour.stall) {
        res.write(behaviour.body ?? '');
        return;
      }
      res.end(behaviour.body ?? '');
    });
  });
  server.listen(0, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`,
    requests,
    respondWith(behaviour, path) {
      if (path === undefined) fallback = behaviour;
      else byPath.set(path, behaviour);
    },
    waitForRequests(count, timeoutMs = 5_000) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const previous = notify;
        notify = () => {
          previous();
          if (requests.length >= count) {
            clearTimeout(timer);
            resolve(requests);
          }
        };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback URL on a port that was bound, then released: connecting to it is refused. */
export async function refusedUrl(): Promise<string> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
