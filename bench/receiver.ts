/**
 * The webhook benchmark's receiver: a bare node:http server that reads each body and answers 204,
 * as a well-behaved customer endpoint would. Run as a child, `PORT=0` picks a free port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = 204;
    res.end();
  });
});
server.keepAliveTimeout = 10_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`Listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
