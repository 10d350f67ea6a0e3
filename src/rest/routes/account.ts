import type { Router } from 'express';
import { getAccount, updateAccount } from '../../core/accounts/get-account.ts';
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
  operationEndpoint({
    method: 'patch',
    path: '/me',
    summary: 'Change workspace settings',
    description:
      'Sets the time zone (an IANA name; an unknown one answers 400) and whether an approver must differ from the ' +
      "item's author. An API key or an admin's token.",
    operation: updateAccount,
    input: 'body',
  }),
];

export const accountRoutes = (runtime: Runtime): Router => routerFor(runtime, accountEndpoints);
