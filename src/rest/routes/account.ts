import type { Router } from 'express';
import { getAccount } from '../../core/accounts/get-account.ts';
import type { Runtime } from '../../core/context.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

export const accountEndpoints = [
  operationEndpoint({
    method: 'get',
    path: '/me',
    summary: 'Get the account',
    description:
      "The plan, its features and this month's usage. Answers even when the plan has no API access or is inactive.",
    operation: getAccount,
    input: 'query',
  }),
];

export const accountRoutes = (runtime: Runtime): Router => routerFor(runtime, accountEndpoints);
