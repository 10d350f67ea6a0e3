import type { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import {
  createContent,
  deleteContent,
  getContent,
  publishContent,
  updateContent,
} from '../../core/content/operations.ts';
import { listContent } from '../../core/content/list.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

export const contentEndpoints = [
  operationEndpoint({
    method: 'get',
    path: '/content',
    summary: 'List content items',
    description:
      'Newest first; archived items only when status=archived is asked for. q searches captions, ignoring case; every filter combines with the others.',
    operation: listContent,
    input: 'query',
  }),
  operationEndpoint({
    method: 'post',
    path: '/content',
    summary: 'Create a content item',
    description: 'Status defaults to draft; scheduled needs scheduled_for. Emits content.created.',
    operation: createContent,
    input: 'body',
    status: 201,
  }),
  operationEndpoint({
    method: 'get',
    path: '/content/:id',
    summary: 'Get a content item',
    description: 'Archived items are still returned.',
    operation: getContent,
    input: 'path',
  }),
  operationEndpoint({
    method: 'patch',
    path: '/content/:id',
    summary: 'Update a content item',
    description:
      'Send only what changes; status also accepts rejected. Emits content.updated (and content.approved when status is approved).',
    operation: updateContent,
    input: 'body',
  }),
  operationEndpoint({
    method: 'delete',
    path: '/content/:id',
    summary: 'Archive a content item',
    description: 'Archiving is final: the item drops from lists and no restore call exists. Emits content.deleted.',
    operation: deleteContent,
    input: 'path',
  }),
  operationEndpoint({
    method: 'post',
    path: '/content/:id/publish',
    summary: 'Queue a content item for publishing',
    description:
      'Asynchronous: the answer is the item as queued (publish_queued true); the outcome arrives by polling the item or by webhook. ' +
      'A future scheduled_for schedules it instead. With dry_run true it changes nothing and answers 200 with a ' +
      'publish_preview: per target platform, whether publishing would be refused now and why (rate-limit bucket: read).',
    operation: publishContent,
    input: 'body',
    status: 202,
  }),
];

export const contentRoutes = (runtime: Runtime): Router => routerFor(runtime, contentEndpoints);
