import type { Reply } from './shared/http-fake.ts';
import { accessDenied, restError, unprocessable } from './linkedin-errors.ts';
import type { LinkedInMediaStore } from './linkedin-media.ts';

const POST_FIELDS = new Set([
  'author',
  'commentary',
  'visibility',
  'distribution',
  'lifecycleState',
  'isReshareDisabledByAuthor',
  'content',
  'contentLandingPage',
  'contentCallToActionLabel',
  'container',
  'reshareContext',
  'adContext',
]);
const VISIBILITIES = ['PUBLIC', 'CONNECTIONS', 'LOGGED_IN', 'CONTAINER'];
const FEED_DISTRIBUTIONS = ['MAIN_FEED', 'NONE'];
const LIFECYCLE_STATES = ['PUBLISHED', 'DRAFT'];
const COMMENTARY_LIMIT = 3000;

/**
 * The Posts API's checks on a create body by `memberUrn`, in the order LinkedIn reports them: the
 * schema (422 with the field path), the author (403), then the media (400 unless uploaded, owned and
 * AVAILABLE). Undefined when the post can be stored.
 */
export function validatePost(
  body: Record<string, unknown> | undefined,
  memberUrn: string,
  media: LinkedInMediaStore,
): Reply | undefined {
  if (!body) return restError(400, 'The request body must be a JSON object.');
  const unknown = Object.keys(body).find((name) => !POST_FIELDS.has(name));
  if (unknown) return unprocessable(`/${unknown}`, 'unrecognized field found but not allowed', 'UNRECOGNIZED_FIELD');
  for (const name of ['author', 'visibility', 'distribution', 'lifecycleState']) {
    if (body[name] === undefined) return unprocessable(`/${name}`, 'field is required but not found', 'MISSING_FIELD');
  }
  if (typeof body.author !== 'string' || !/^urn:li:(person|organization):[A-Za-z0-9_-]+$/.test(body.author)) {
    return unprocessable('/author', 'is not a valid person or organization URN');
  }
  if (body.commentary !== undefined && typeof body.commentary !== 'string') {
    return unprocessable('/commentary', 'must be a string');
  }
  if (typeof body.commentary === 'string' && body.commentary.length > COMMENTARY_LIMIT) {
    return unprocessable('/commentary', `must not exceed ${COMMENTARY_LIMIT} characters`);
  }
  if (!VISIBILITIES.includes(body.visibility as string)) return unprocessable('/visibility', 'is not a valid value');
  if (!LIFECYCLE_STATES.includes(body.lifecycleState as string)) {
    return unprocessable('/lifecycleState', 'is not a valid value');
  }
  if (body.isReshareDisabledByAuthor !== undefined && typeof body.isReshareDisabledByAuthor !== 'boolean') {
    return unprocessable('/isReshareDisabledByAuthor', 'must be a boolean');
  }
  const distribution = body.distribution as Record<string, unknown> | null;
  if (typeof distribution !== 'object' || distribution === null) {
    return unprocessable('/distribution', 'must be an object');
  }
  if (!FEED_DISTRIBUTIONS.includes(distribution.feedDistribution as string)) {
    return unprocessable('/distribution/feedDistribution', 'is not a valid value');
  }
  for (const list of ['targetEntities', 'thirdPartyDistributionChannels']) {
    if (distribution[list] !== undefined && !Array.isArray(distribution[list])) {
      return unprocessable(`/distribution/${list}`, 'must be an array');
    }
  }
  // Posting as a Page needs the organization scopes and an admin role this fake never grants.
  if (body.author !== memberUrn) return accessDenied('posts.CREATE');
  if (body.content === undefined) {
    return body.commentary ? undefined : unprocessable('/commentary', 'a post without content needs commentary');
  }
  return validateContent(body.content, memberUrn, media);
}

function validateContent(content: unknown, memberUrn: string, media: LinkedInMediaStore): Reply | undefined {
  if (typeof content !== 'object' || content === null) return unprocessable('/content', 'must be an object');
  const kinds = Object.keys(content);
  if (kinds.length !== 1) return unprocessable('/content', 'must hold exactly one of media, multiImage, article');
  const { media: single, multiImage } = content as { media?: unknown; multiImage?: unknown };
  if (single !== undefined) {
    const id = (single as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return unprocessable('/content/media/id', 'field is required but not found');
    const alt = altTextProblem((single as { altText?: unknown }).altText, '/content/media/altText');
    if (alt) return alt;
    const refusal = media.refuseForPost(id, memberUrn, ['image', 'video']);
    return refusal ? restError(400, refusal) : undefined;
  }
  if (multiImage !== undefined) {
    const images = (multiImage as { images?: unknown } | null)?.images;
    if (!Array.isArray(images) || images.length < 2 || images.length > 20) {
      return unprocessable('/content/multiImage/images', 'must hold 2 to 20 images');
    }
    for (const [index, image] of images.entries()) {
      const id = (image as { id?: unknown } | null)?.id;
      if (typeof id !== 'string') return unprocessable(`/content/multiImage/images/${index}/id`, 'is required');
      const alt = altTextProblem(
        (image as { altText?: unknown }).altText,
        `/content/multiImage/images/${index}/altText`,
      );
      if (alt) return alt;
      const refusal = media.refuseForPost(id, memberUrn, ['image']);
      if (refusal) return restError(400, refusal);
    }
    return undefined;
  }
  if ('article' in content) return undefined;
  return unprocessable(`/content/${kinds[0]}`, 'is not a supported content type');
}

/** The Posts API's `altText` on an image: optional, a string of at most 4,086 characters. */
const MAX_ALT_TEXT = 4086;
function altTextProblem(altText: unknown, path: string): Reply | undefined {
  if (altText === undefined) return undefined;
  if (typeof altText !== 'string') return unprocessable(path, 'must be a string');
  if (altText.length > MAX_ALT_TEXT) return unprocessable(path, `must be at most ${MAX_ALT_TEXT} characters`);
  return undefined;
}
