import type { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { listEnvelope } from '../../core/pagination.ts';
import { listSocialAccounts } from '../../core/social-accounts/operations.ts';
import { SocialAccountResource } from '../../core/social-accounts/schemas.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

export const socialAccountEndpoints = [
  operationEndpoint({
    method: 'get',
    path: '/social-accounts',
    summary: 'List connected social accounts',
    description: 'The full set in one page, active and inactive.',
    operation: listSocialAccounts,
    input: 'query',
    response: listEnvelope(SocialAccountResource),
  }),
];

export const socialAccountRoutes = (runtime: Runtime): Router => routerFor(runtime, socialAccountEndpoints);
