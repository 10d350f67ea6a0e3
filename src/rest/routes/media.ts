import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';

/** POST /media_assets (and under /api/v1), GET /api/v1/media-library, and the public file URLs. */
export function mediaRoutes(_runtime: Runtime): Router {
  return Router();
}
