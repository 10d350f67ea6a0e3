import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP relay on loopback in front of a server (the test's PostgreSQL), which a test can cut as a
 * network fault or a server restart would: `cut()` drops every relayed connection and refuses new
 * ones (ECONNREFUSED), `restore()` listens again on the same port.
 */
export interface TcpProxy {
  /** The port clients connect to instead of the server's. */
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const relay = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  };
  let server: Server = createServer(relay);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  const port = await listen(0);
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  };
  return {
    port,
    cut: stop,
    async restore() {
      server = createServer(relay);
      await listen(port);
    },
    close: stop,
  };
}
