import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { listTemplates } from '../../core/templates/operations.ts';
import { fromQuery, handle, route } from '../handle.ts';

/** GET /api/v1/templates: the shared templates library, read-only. */
export function templateRoutes(runtime: Runtime): Router {
  const router = Router();
  route(router, '/templates', { get: handle(runtime, listTemplates, fromQuery) });
  return router;
}
