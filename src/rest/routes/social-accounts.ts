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
    summary: 'Connect a live account: over OAuth, or with credentials',
    description:
      "OAuth platforms: answers the platform's consent URL for the user to open. The platform sends the user back to " +
      'GET /callbacks/{platform}/oauth, which connects the account (live, active) and emits social_account.connected. ' +
      'The URL works once, for 15 minutes, and only for this workspace. ' +
      'Platforms that connect with credentials (see the platforms table in the configuration docs): send identifier and ' +
      'app_password; the service signs in once, stores only the session, and answers the connected account ' +
      '(live, active; social_account.connected is emitted). The app password is never stored nor logged; a refused ' +
      'sign-in answers 422 credentials_refused and creates nothing.',
    operation: startAccountConnection,
    input: 'body',
    status: 201,
  }),
];

export const socialAccountRoutes = (runtime: Runtime): Router => routerFor(runtime, socialAccountEndpoints);
