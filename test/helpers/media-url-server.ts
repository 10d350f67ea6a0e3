/**
 * A loopback server for media URLs, for fakes that download the media they are given (Instagram):
 * each path answers its file, `/missing` a 404 and `/hang` nothing at all. It counts what was fetched.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MediaUrlServer {
  url: string;
  /** `url` + path. */
  at(path: string): string;
  /** Paths requested, in order. */
  requested: string[];
  close(): Promise<void>;
}

export async function startMediaUrlServer(
  files: Record<string, { bytes: Buffer; contentType: string }>,
): Promise<MediaUrlServer> {
  const requested: string[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://media.invalid').pathname;
    requested.push(path);
    if (path === '/hang') {
      hanging.push(res);
      return;
    }
    const file = files[path];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
    res.end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    at: (path) => `${url}${path}`,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
