import { Router } from 'express';
import { getBrandProfile, updateBrandProfile } from '../../core/brand-profile/operations.ts';
import type { Runtime } from '../../core/context.ts';
import { fromBodyAndParams, fromQuery, handle, route } from '../handle.ts';

/**
 * SPEC.md writes the path both ways (`/brand-profile` for the tools, `/brand_profile` for the
 * resource); DECISIONS.md serves the one resource at both, with both methods on each.
 */
export function brandProfileRoutes(runtime: Runtime): Router {
  const router = Router();
  for (const path of ['/brand-profile', '/brand_profile']) {
    route(router, path, {
      get: handle(runtime, getBrandProfile, fromQuery),
      patch: handle(runtime, updateBrandProfile, fromBodyAndParams),
    });
  }
  return router;
}
