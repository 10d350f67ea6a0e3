import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import {
  createContent,
  deleteContent,
  getContent,
  listContent,
  publishContent,
  updateContent,
} from '../../core/content/operations.ts';
import { fromBodyAndParams, fromParams, fromQuery, handle, route } from '../handle.ts';

export function contentRoutes(runtime: Runtime): Router {
  const router = Router();
  route(router, '/content', {
    get: handle(runtime, listContent, fromQuery),
    post: handle(runtime, createContent, fromBodyAndParams, 201),
  });
  route(router, '/content/:id', {
    get: handle(runtime, getContent, fromParams),
    patch: handle(runtime, updateContent, fromBodyAndParams),
    delete: handle(runtime, deleteContent, fromParams),
  });
  route(router, '/content/:id/publish', {
    post: handle(runtime, publishContent, fromBodyAndParams, 202),
  });
  return router;
}
