/**
 * Publishing on Threads through Meta's container API (meta/container-publisher.ts):
 * `threads_publishing_limit` first, containers on `/threads` (TEXT, IMAGE or VIDEO, or a CAROUSEL of
 * 2 to 20 items), one `threads_publish`. A post may be text alone.
 */
import { containerPublisher, type ContainerApi, type ContainerPublisherOptions } from '../meta/container-publisher.ts';
import type { LivePublisher } from '../platform-client.ts';
import { THREADS_GRAPH } from './errors.ts';

export const MAX_CAROUSEL = 20;

const THREADS_API: ContainerApi = {
  graph: THREADS_GRAPH,
  edges: {
    create: 'threads',
    publish: 'threads_publish',
    publishingLimit: 'threads_publishing_limit',
    list: 'threads',
  },
  labels: {
    create: 'threads.create',
    publish: 'threads.publish',
    publishingLimit: 'threads.publishing_limit',
    list: 'threads.list',
    get: 'threads.get',
  },
  textParam: 'text',
  statusFields: { code: 'status', text: 'error_message' },
  textOnly: { media_type: 'TEXT' },
  mediaParams: (ref): Record<string, string> =>
    ref.kind === 'video' ? { media_type: 'VIDEO', video_url: ref.url } : { media_type: 'IMAGE', image_url: ref.url },
  maxCarousel: MAX_CAROUSEL,
  // Meta suggests polling about once a minute for at most 5 minutes; text and images are usually ready at once.
  polling: { delaysMs: [1_000, 2_000, 5_000, 10_000, 30_000, 60_000], maxProcessingMs: 5 * 60_000 },
};

export function threadsPublisher(app: { apiBaseUrl: string }, options: ContainerPublisherOptions = {}): LivePublisher {
  return containerPublisher(THREADS_API, app, options);
}
