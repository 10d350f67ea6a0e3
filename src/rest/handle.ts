import express, {
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import { authenticateCredential } from '../core/accounts/api-keys.ts';
import type { Workspace } from '../core/accounts/workspaces.ts';
import { contextFor, type Runtime } from '../core/context.ts';
import type { OAuthScope } from '../core/oauth/metadata.ts';
import type { Principal } from '../core/people/principal.ts';
import { RateLimitError, ServiceError, type ErrorCode, type RateLimitState } from '../core/errors.ts';
import type { Bucket } from '../core/config.ts';
import { executeCall, isStoredError, type StoredResponse } from '../core/idempotency.ts';
import { operationFor, type Operation } from '../core/operation.ts';
import { consumeRateLimit } from '../core/rate-limits.ts';
import { ERROR_STATUS, errorResponse, setRateLimitHeaders } from '../http/errors.ts';
import { recordRoutePattern } from './request-context.ts';

/** Where a route finds its operation's input: the query for reads, the body for writes, plus path ids. */
export type InputSource = (req: Request) => unknown;

export const fromParams: InputSource = (req) => ({ ...req.params });
export const fromBodyAndParams: InputSource = (req) => {
  const body: unknown = req.body;
  // A JSON array, string or number is not an object of fields; let the schema say so.
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) return body;
  return { ...(body as object), ...req.params };
};

/** What one route method runs, in order; the last may handle errors of the ones before. */
export type Handlers = Array<RequestHandler | ErrorRequestHandler>;

const workspaceOf = (res: Response): Workspace => res.locals.workspace as Workspace;

/** A body sent as anything but JSON would be ignored silently by the parser: say so instead. */
export function requireBodyType(type: string, message: string): RequestHandler {
  return (req, _res, next) => {
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (hasBody && !req.is(type)) throw new ServiceError('unsupported_media_type', message);
    next();
  };
}

const requireJsonBody = requireBodyType(
  'application/json',
  'Send the body as JSON with Content-Type: application/json.',
);

/**
 * Turns a core operation into Express handlers: authenticate (so an anonymous caller never gets
 * its body read), read the body (JSON, unless the route reads it its own way, as the multipart
 * upload does), then take from the rate-limit buckets and run, in the next group commit
 * (executeOperation). A request that fails before it runs (a bad body, an idempotency refusal) is still
 * counted, so every authenticated answer carries the rate-limit headers. Every rule lives in the
 * core; this only translates.
 */
export function handle(
  runtime: Runtime,
  operation: Operation,
  input: InputSource,
  status = 200,
  readBody: RequestHandler[] = [requireJsonBody, express.json({ limit: runtime.config.bodyLimitBytes })],
  /** What an Idempotency-Key compares: the operation's input, unless the route reads its body otherwise (an upload). */
  fingerprinted: InputSource = input,
): Handlers {
  /** The buckets a request of this route counts on: its dry run's, once the input asked for one. */
  const bucketsOf = (res: Response): readonly Bucket[] =>
    (res.locals.buckets as Bucket[] | undefined) ?? operation.buckets;
  const gate: RequestHandler = async (req, res, next) => {
    // An answer is one credential's view of its workspace, and some carry a secret (a webhook's
    // signing_secret): no cache, the browser's included, may keep any of them.
    res.set('Cache-Control', 'no-store');
    const credential = await authenticateCredential(runtime, req.get('authorization'), {
      planChecks: operation.planChecks ?? true,
    });
    // An API key carries every scope, a token its own; runOperation checks them against the
    // operation's declared scope, as it checks the person's role.
    res.locals.workspace = credential.workspace;
    res.locals.principal = credential.principal;
    res.locals.scopes = credential.scopes;
    next();
  };
  const report = (res: Response) => (state: RateLimitState) => {
    res.locals.rateLimited = true;
    setRateLimitHeaders(res, state);
  };
  /** Counts a request the operation did not run for (a replay, a bad body) and reports the buckets. */
  const countRequest = async (res: Response) =>
    report(res)(await consumeRateLimit(runtime, workspaceOf(res).id, bucketsOf(res)));
  const run: RequestHandler = async (req, res) => {
    const ctx = contextFor(
      runtime,
      workspaceOf(res),
      'rest',
      res.locals.principal as Principal,
      res.locals.scopes as readonly OAuthScope[],
    );
    const raw = input(req);
    // A dry run (the publish preview) changes nothing: it answers 200 and counts on its own buckets.
    const chosen = operationFor(operation, raw);
    res.locals.buckets = chosen.buckets;
    const answerStatus = chosen === operation ? status : 200;
    const key = req.method === 'POST' ? req.get('idempotency-key') : undefined;
    const { replayed, response } = await executeCall(
      ctx,
      operation,
      raw,
      key === undefined ? undefined : { key, keyField: 'Idempotency-Key', input: fingerprinted(req) },
      report(res),
      { status: answerStatus, failed: (error) => errorResponse(error, runtime.config.docsUrl) },
    );
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(replayStatus(response, answerStatus)).json(response.body);
  };
  const countFailedRequest: ErrorRequestHandler = async (error, _req, res, next) => {
    const authenticated = res.locals.workspace !== undefined;
    if (authenticated && !res.locals.rateLimited && !(error instanceof RateLimitError)) {
      try {
        await countRequest(res);
      } catch (refused) {
        return next(refused);
      }
    }
    next(error);
  };
  return [gate, ...readBody, run, countFailedRequest];
}

/**
 * The status of a stored answer, whichever door stored it (a tool call stores no HTTP status): an
 * error's is its code's, a result's the route's.
 */
function replayStatus(response: StoredResponse, successStatus: number): number {
  if (!isStoredError(response)) return successStatus;
  const code = (response.body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === 'string' && code in ERROR_STATUS ? ERROR_STATUS[code as ErrorCode] : response.status;
}

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** Registers one path's methods; any other method on it answers 405 with an Allow header. */
export function route(router: Router, path: string, methods: Partial<Record<Method, Handlers>>): void {
  const chain = router.route(path);
  chain.all(recordRoutePattern);
  for (const [method, handlers] of Object.entries(methods) as Array<[Method, Handlers]>) chain[method](handlers);
  const allow = Object.keys(methods).map((m) => m.toUpperCase());
  if (allow.includes('GET')) allow.push('HEAD');
  chain.all((_req, res) => {
    res.setHeader('Allow', allow.join(', '));
    throw new ServiceError('method_not_allowed', `This route accepts ${allow.join(', ')}.`);
  });
}
