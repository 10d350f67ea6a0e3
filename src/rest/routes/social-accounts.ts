import type { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { startAccountConnection } from '../../core/social-accounts/connect.ts';
import { listSocialAccounts } from '../../core/social-accounts/operations.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

export const socialAccountEndpoints = [
  operationEndpoint({
    method: 'get',
    path: '/social-accounts',
    summary: 'List connected social accounts',
    description: 'The full set in one page, active and inactive.',
    operation: listSocialAccounts,
    input: 'query',
  }),
  operationEndpoint({
    method: 'post',
    path: '/social-accounts/connect',
    summary: 'Start connecting a live account over OAuth',
    description:
      "Answers the platform's consent URL for the user to open. The platform sends the user back to " +
      'GET /callbacks/{platform}/oauth, which connects the account (live, active) and emits social_account.connected. ' +
      'The URL works once, for 15 minutes, and only for this workspace.',
    operation: startAccountConnection,
    input: 'body',
    status: 201,
  }),
];

export const socialAccountRoutes = (runtime: Runtime): Router => routerFor(runtime, socialAccountEndpoints);
