/**
 * A loopback HTTP server that serves fixed bytes at fixed paths, for fakes that download media from
 * the URLs they are given (Meta, TikTok). Paths not registered answer 404; every request is counted.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedFiles {
  url: string;
  /** Serves `bytes` at `path` (starting with `/`) and answers its absolute URL. */
  add(path: string, bytes: Buffer, contentType?: string): string;
  /** How many GETs each path received. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function serveFiles(): Promise<ServedFiles> {
  const files = new Map<string, { bytes: Buffer; contentType: string }>();
  const hits = new Map<string, number>();
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://local.invalid').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const file = files.get(path);
    if (!file || request.method !== 'GET') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.contentType, 'content-length': file.bytes.length });
    response.end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    hits,
    add(path, bytes, contentType = 'application/octet-stream') {
      files.set(path, { bytes, contentType });
      return `${url}${path}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
