import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { listSocialAccounts } from '../../core/social-accounts/operations.ts';
import { fromQuery, handle, route } from '../handle.ts';

export function socialAccountRoutes(runtime: Runtime): Router {
  const router = Router();
  route(router, '/social-accounts', { get: handle(runtime, listSocialAccounts, fromQuery) });
  return router;
}
