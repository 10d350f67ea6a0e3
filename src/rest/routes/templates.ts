import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';

/** GET /api/v1/templates: the shared templates library. */
export function templateRoutes(_runtime: Runtime): Router {
  return Router();
}
