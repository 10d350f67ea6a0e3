/**
 * A loopback HTTP server handing out fixed files, for fake platforms that download media by URL
 * (TikTok's PULL_FROM_URL, Meta's image_url): a path not listed answers 404.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MediaServer {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startMediaServer(
  files: Record<string, { bytes: Buffer; mimeType: string }>,
): Promise<MediaServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://media.invalid').pathname;
    requests.push(path);
    const file = files[path];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.bytes.length) }).end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
