import type { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import {
  createContent,
  deleteContent,
  getContent,
  listContent,
  publishContent,
  updateContent,
} from '../../core/content/operations.ts';
import { ContentResource, PublishPreview } from '../../core/content/schemas.ts';
import { deletedResource, listEnvelope } from '../../core/pagination.ts';
import { operationEndpoint, routerFor } from '../endpoints.ts';

export const contentEndpoints = [
  operationEndpoint({
    method: 'get',
    path: '/content',
    summary: 'List content items',
    description: 'Newest first; archived items only when status=archived is asked for.',
    operation: listContent,
    input: 'query',
    response: listEnvelope(ContentResource),
  }),
  operationEndpoint({
    method: 'post',
    path: '/content',
    summary: 'Create a content item',
    description: 'Status defaults to draft; scheduled needs scheduled_for. Emits content.created.',
    operation: createContent,
    input: 'body',
    status: 201,
    response: ContentResource,
  }),
  operationEndpoint({
    method: 'get',
    path: '/content/:id',
    summary: 'Get a content item',
    description: 'Archived items are still returned.',
    operation: getContent,
    input: 'path',
    response: ContentResource,
  }),
  operationEndpoint({
    method: 'patch',
    path: '/content/:id',
    summary: 'Update a content item',
    description:
      'Send only what changes; status also accepts rejected. Emits content.updated (and content.approved when status is approved).',
    operation: updateContent,
    input: 'body',
    response: ContentResource,
    errors: ['no_updates', 'invalid_state'],
  }),
  operationEndpoint({
    method: 'delete',
    path: '/content/:id',
    summary: 'Archive a content item',
    description: 'Archiving is final: the item drops from lists and no restore call exists. Emits content.deleted.',
    operation: deleteContent,
    input: 'path',
    response: deletedResource('content'),
    errors: ['invalid_state'],
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
    response: ContentResource,
    dryRunResponse: PublishPreview,
    errors: ['invalid_state', 'no_target_platforms', 'quota_exceeded'],
  }),
];

export const contentRoutes = (runtime: Runtime): Router => routerFor(runtime, contentEndpoints);
