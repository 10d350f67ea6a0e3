import { Router } from 'express';
import { getAccount } from '../../core/accounts/get-account.ts';
import type { Runtime } from '../../core/context.ts';
import { fromQuery, handle, route } from '../handle.ts';

export function accountRoutes(runtime: Runtime): Router {
  const router = Router();
  route(router, '/me', { get: handle(runtime, getAccount, fromQuery) });
  return router;
}
