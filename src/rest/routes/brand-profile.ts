import type { Router } from 'express';
import { getBrandProfile, updateBrandProfile } from '../../core/brand-profile/operations.ts';
import type { Runtime } from '../../core/context.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

/**
 * The contract writes the path both ways (`/brand-profile` for the tools, `/brand_profile` for the
 * resource); the one resource is served at both, with both methods on each.
 */
export const brandProfileEndpoints = ['/brand-profile', '/brand_profile'].flatMap((path) => [
  operationEndpoint({
    method: 'get',
    path,
    summary: 'Get the brand profile',
    description: 'Both field sets; unset strings are null, lists [], tones 5.',
    operation: getBrandProfile,
    input: 'query',
  }),
  operationEndpoint({
    method: 'patch',
    path,
    summary: 'Update the brand profile',
    description:
      'Any subset of both field sets. A wrong type is 400 invalid_body; a length, count or range breach is 422 unprocessable_entity.',
    operation: updateBrandProfile,
    input: 'body',
  }),
]);

export const brandProfileRoutes = (runtime: Runtime): Router => routerFor(runtime, brandProfileEndpoints);
