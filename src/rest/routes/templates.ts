import type { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { listTemplates } from '../../core/templates/operations.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

export const templateEndpoints = [
  operationEndpoint({
    method: 'get',
    path: '/templates',
    summary: 'List templates',
    description: 'The shared, read-only templates library, newest first.',
    operation: listTemplates,
    input: 'query',
  }),
];

/** GET /api/v1/templates: the shared templates library, read-only. */
export const templateRoutes = (runtime: Runtime): Router => routerFor(runtime, templateEndpoints);
