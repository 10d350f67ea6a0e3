import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { authenticate } from '../core/accounts/api-keys.ts';
import type { Workspace } from '../core/accounts/workspaces.ts';
import { contextFor, type Runtime } from '../core/context.ts';
import { ServiceError } from '../core/errors.ts';
import { runOperation, type Operation } from '../core/operation.ts';
import { consumeRateLimit } from '../core/rate-limits.ts';
import { setRateLimitHeaders } from './errors.ts';

/** Where a route finds its operation's input: the query for reads, the body for writes, plus path ids. */
export type InputSource = (req: Request) => unknown;

export const fromQuery: InputSource = (req) => ({ ...req.query });
export const fromParams: InputSource = (req) => ({ ...req.params });
export const fromBodyAndParams: InputSource = (req) => {
  const body: unknown = req.body;
  // A JSON array, string or number is not an object of fields; let the schema say so.
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) return body;
  return { ...(body as object), ...req.params };
};

const workspaceOf = (res: Response): Workspace => res.locals.workspace as Workspace;

/**
 * Turns a core operation into Express handlers: authenticate and take from the rate-limit buckets
 * first (so an anonymous or throttled caller never gets its body read), then parse the JSON body,
 * validate and run. Every rule lives in the core; this only translates.
 */
export function handle(runtime: Runtime, operation: Operation, input: InputSource, status = 200): RequestHandler[] {
  const gate: RequestHandler = (req, res, next) => {
    const workspace = authenticate(runtime, req.get('authorization'), { planChecks: operation.planChecks ?? true });
    res.locals.workspace = workspace;
    setRateLimitHeaders(res, consumeRateLimit(runtime, workspace.id, operation.buckets));
    next();
  };
  const run: RequestHandler = (req, res) => {
    const result = runOperation(operation, contextFor(runtime, workspaceOf(res), 'rest'), input(req));
    res.status(status).json(result);
  };
  return [gate, express.json({ limit: runtime.config.bodyLimitBytes }), run];
}

type Method = 'get' | 'post' | 'patch' | 'delete';

/** Registers one path's methods; any other method on it answers 405 with an Allow header. */
export function route(router: Router, path: string, methods: Partial<Record<Method, RequestHandler[]>>): void {
  const chain = router.route(path);
  for (const [method, handlers] of Object.entries(methods) as Array<[Method, RequestHandler[]]>) chain[method](handlers);
  const allow = Object.keys(methods).map((m) => m.toUpperCase());
  if (allow.includes('GET')) allow.push('HEAD');
  chain.all((_req, res) => {
    res.setHeader('Allow', allow.join(', '));
    throw new ServiceError('method_not_allowed', `This route accepts ${allow.join(', ')}.`);
  });
}
