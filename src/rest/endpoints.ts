import { Router, type RequestHandler } from 'express';
import type { z } from 'zod';
import type { Runtime } from '../core/context.ts';
import type { ErrorCode } from '../core/errors.ts';
import type { Operation } from '../core/operation.ts';
import {
  fromBodyAndParams,
  fromParams,
  handle,
  route,
  type Handlers,
  type InputSource,
  type Method,
} from './handle.ts';

/**
 * The route table: every HTTP route is one row, and the same row both registers the Express handlers
 * and writes the route's entry in the OpenAPI document (openapi.ts), so a route cannot exist without
 * its documentation, nor the document describe a route that is not served.
 */

/** Where an operation reads its input besides the path: nowhere else, the query string, or the body. */
export type InputFrom = 'path' | 'query' | 'body';

interface EndpointBase {
  method: Method;
  /** Express syntax (`/content/:id`), relative to where the router is mounted. */
  path: string;
  summary: string;
  description?: string;
}

/**
 * A route that runs a core operation through handle(): authenticated, rate limited, idempotent POSTs.
 * Its success body and its own error codes are the operation's (`output`, `errors`): the row only says
 * where the operation is served and how its input is read.
 */
export interface OperationEndpoint extends EndpointBase {
  kind: 'operation';
  operation: Operation;
  input: InputFrom;
  status: number;
  /** A body read otherwise than as JSON (the multipart upload): its reader, the input it yields, its document. */
  upload?: { reader: (runtime: Runtime) => RequestHandler; input: InputSource; requestBody: Record<string, unknown> };
}

/** One documented answer of a public route: a JSON body, another media type, or no body. */
export interface PublicResponse {
  description: string;
  json?: z.ZodType;
  mediaType?: string;
  headers?: Record<string, { description: string; required?: boolean }>;
}

/** A route outside the operations: public (no key, no rate limit), with its own handlers. */
export interface PublicEndpoint extends EndpointBase {
  kind: 'public';
  handlers: (runtime: Runtime) => Handlers;
  parameters?: Array<{ name: string; in: 'path' | 'query'; description: string; schema: Record<string, unknown> }>;
  requestBody?: Record<string, unknown>;
  responses: Record<number, PublicResponse>;
  /** Error codes it answers with the envelope. */
  errors: readonly ErrorCode[];
  /**
   * True for a route that answers whatever the database does (a probe, a fixed document): it never
   * answers 503 service_unavailable, which every other route may while the database is out of reach.
   */
  answersWithoutDatabase?: true;
}

export type Endpoint = OperationEndpoint | PublicEndpoint;

/** A row for a core operation; the status defaults to 200. */
export function operationEndpoint<Input extends z.ZodObject, Output>(
  row: Omit<OperationEndpoint, 'kind' | 'operation' | 'status'> & {
    operation: Operation<Input, Output>;
    status?: number;
  },
): OperationEndpoint {
  return {
    ...row,
    kind: 'operation',
    operation: row.operation as unknown as Operation,
    status: row.status ?? 200,
  };
}

export const publicEndpoint = (row: Omit<PublicEndpoint, 'kind'>): PublicEndpoint => ({ ...row, kind: 'public' });

/** A list's query, with the path ids (the delivery log is paged for the webhook in its path). */
const fromQueryAndParams: InputSource = (req) => ({ ...req.query, ...req.params });

const INPUT_SOURCES: Record<InputFrom, InputSource> = {
  path: fromParams,
  query: fromQueryAndParams,
  body: fromBodyAndParams,
};

function handlersOf(runtime: Runtime, endpoint: Endpoint): Handlers {
  if (endpoint.kind === 'public') return endpoint.handlers(runtime);
  const { operation, status, upload } = endpoint;
  // An upload compares its file by hash (the multipart reader leaves it in req.body), not the stored file it yields.
  if (upload) return handle(runtime, operation, upload.input, status, [upload.reader(runtime)], (req) => req.body);
  return handle(runtime, operation, INPUT_SOURCES[endpoint.input], status);
}

/** The Express router of a group of rows: one route() per path, so other methods answer 405. */
export function routerFor(runtime: Runtime, endpoints: readonly Endpoint[]): Router {
  const router = Router();
  const byPath = new Map<string, Partial<Record<Method, Handlers>>>();
  for (const endpoint of endpoints) {
    const methods = byPath.get(endpoint.path) ?? {};
    if (methods[endpoint.method]) throw new Error(`Two routes for ${endpoint.method.toUpperCase()} ${endpoint.path}.`);
    methods[endpoint.method] = handlersOf(runtime, endpoint);
    byPath.set(endpoint.path, methods);
  }
  for (const [path, methods] of byPath) route(router, path, methods);
  return router;
}
