import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { withLogContext, type Logger } from '../core/log.ts';

/** An incoming X-Request-Id is kept when it is this sane: short, and safe in a header and a log line. */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/;

/** The route label of a request no route matched (a 404): never the raw path, which is unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The status recorded for a request whose connection closed before any answer was sent. */
export const CLIENT_CLOSED_REQUEST = 499;

export interface AnsweredRequest {
  method: string;
  route: string;
  status: number;
  seconds: number;
}

/**
 * First on every request: takes the caller's X-Request-Id (when sane) or makes one, echoes it on the
 * answer whatever it is, and runs the rest of the request in a log context carrying it, so every
 * line logged on its behalf (the core's included) has `request_id`. When the answer is finished or
 * the connection drops, writes one access line and tells `observe`.
 */
export function requestContext(log: Logger, observe: (request: AnsweredRequest) => void): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const incoming = req.get('x-request-id');
    const context = {
      request_id: incoming !== undefined && ACCEPTED_REQUEST_ID.test(incoming) ? incoming : randomUUID(),
    };
    res.setHeader('X-Request-Id', context.request_id);
    withholdRequestIdOnFailure(res);
    res.once('close', () => {
      // Closed before an answer began: the client went away (or the shutdown cut it), nginx's 499.
      const status = res.headersSent ? res.statusCode : CLIENT_CLOSED_REQUEST;
      const answered = {
        method: req.method,
        route: routeOf(req, res),
        status,
        seconds: (performance.now() - started) / 1000,
      };
      observe(answered);
      withLogContext(context, () =>
        log.info(
          {
            method: answered.method,
            route: answered.route,
            status: answered.status,
            duration_ms: Math.round(answered.seconds * 1e4) / 10,
            ...(res.writableFinished ? {} : { aborted: true }),
          },
          'request',
        ),
      );
    });
    withLogContext(context, next);
  };
}

/**
 * The error contract: a failure has "no request_id and no X-Request-Id header". Issue 7 asks for the
 * header on answers, so successes carry it and failures (any 4xx or 5xx, whoever writes it: the
 * error translator, an idempotent replay, a range refusal) have it taken off as the head is written.
 * The id still tags every log line of the request, failures included.
 */
function withholdRequestIdOnFailure(res: Response): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, status: number, ...rest: unknown[]) {
    if (status >= 400) this.removeHeader('X-Request-Id');
    return (writeHead as (...args: unknown[]) => Response).call(this, status, ...rest);
  } as typeof res.writeHead;
}

/**
 * Records the route pattern as the route is entered: by the time an error reaches the app's
 * translator, Express has restored `req.baseUrl` to the app's, so the full pattern is known only here.
 */
export const recordRoutePattern: RequestHandler = (req, res, next) => {
  res.locals.route = req.baseUrl + (req.route as { path: string }).path;
  next();
};

function routeOf(req: Request, res: Response): string {
  if (typeof res.locals.route === 'string') return res.locals.route;
  const route = req.route as { path?: unknown } | undefined;
  return typeof route?.path === 'string' ? req.baseUrl + route.path : UNMATCHED_ROUTE;
}
