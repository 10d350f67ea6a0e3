/**
 * The benchmarks' webhook receiver: a bare node:http server that reads each body and answers 204,
 * as a well-behaved customer endpoint would. It counts what it is sent (requests, and distinct
 * `webhook-id`s, which are the event ids receivers dedupe on) and reports both at `GET /stats`, so
 * the soak can tell whether every event arrived. Run as a child, `PORT=0` picks a free port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let received = 0;
const eventIds = new Set<string>();

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ received, distinct_event_ids: eventIds.size }));
    return;
  }
  received += 1;
  const eventId = req.headers['webhook-id'];
  if (typeof eventId === 'string') eventIds.add(eventId);
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
