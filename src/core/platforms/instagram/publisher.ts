/**
 * Publishing on Instagram (professional accounts, Instagram Login) through Meta's container API
 * (meta/container-publisher.ts): `content_publishing_limit` first, containers on `/media` (an image
 * by `image_url`, a single video as a reel, 2 to 10 items as a carousel), one `media_publish`. Every
 * post needs media: Instagram has no text-only posts.
 */
import { containerPublisher, type ContainerApi, type ContainerPublisherOptions } from '../meta/container-publisher.ts';
import type { LivePublisher } from '../platform-client.ts';
import { INSTAGRAM_GRAPH } from './errors.ts';

export const MAX_CAROUSEL = 10;

const INSTAGRAM_API: ContainerApi = {
  graph: INSTAGRAM_GRAPH,
  edges: { create: 'media', publish: 'media_publish', publishingLimit: 'content_publishing_limit', list: 'media' },
  labels: {
    create: 'media.create',
    publish: 'media.publish',
    publishingLimit: 'publishing_limit',
    list: 'media.list',
    get: 'media.get',
  },
  textParam: 'caption',
  statusFields: { code: 'status_code', text: 'status' },
  // An image needs no media_type; a video alone is a reel, and a carousel's video item is VIDEO.
  mediaParams: (ref, carouselItem): Record<string, string> =>
    ref.kind === 'video'
      ? { media_type: carouselItem ? 'VIDEO' : 'REELS', video_url: ref.url }
      : { image_url: ref.url },
  maxCarousel: MAX_CAROUSEL,
  // Meta suggests polling about once a minute for videos; images are usually ready at once.
  polling: { delaysMs: [1_000, 2_000, 3_000, 5_000, 10_000, 15_000, 30_000], maxProcessingMs: 10 * 60_000 },
};

export function instagramPublisher(
  app: { apiBaseUrl: string },
  options: ContainerPublisherOptions = {},
): LivePublisher {
  return containerPublisher(INSTAGRAM_API, app, options);
}
