import type { ContentType, Platform } from '../../../db/schema/index.ts';
import type { ContentRow } from '../content/serialize.ts';
import type { PlatformPost } from './connector.ts';

/** The fields of a content item that decide what a platform is sent. */
export type PostSource = Pick<ContentRow, 'caption' | 'hashtags' | 'mediaUrls' | 'contentType' | 'platformSpecific'> &
  Partial<Pick<ContentRow, 'mediaAltText'>>;

/** What the workspace says for every post, unless an item says otherwise. */
export interface PostDefaults {
  /** The workspace's default language (a canonical BCP 47 tag), or null. */
  defaultLanguage: string | null;
}

/** For judging a post's rules, which no default changes. */
export const NO_DEFAULTS: PostDefaults = { defaultLanguage: null };

/**
 * What `platform` is sent for `item`: that platform's `platform_specific` overrides replace the base
 * caption, hashtags and media before anything is measured, so every rule judges what is really
 * posted. An override given as an empty list (no hashtags, no media, no languages on this platform)
 * replaces too.
 */
export function composePost(item: PostSource, platform: Platform, defaults: PostDefaults = NO_DEFAULTS): PlatformPost {
  const override = item.platformSpecific[platform] ?? {};
  const caption = override.caption ?? item.caption;
  const hashtags = override.hashtags ?? item.hashtags;
  const mediaUrls = override.media_urls ?? item.mediaUrls;
  return {
    platform,
    contentType: item.contentType,
    caption,
    hashtags: [...hashtags],
    mediaUrls: [...mediaUrls],
    text: postText(caption, hashtags),
    ...(item.mediaAltText && Object.keys(item.mediaAltText).length > 0 && { mediaAltText: { ...item.mediaAltText } }),
    languages: [...(override.langs ?? (defaults.defaultLanguage ? [defaults.defaultLanguage] : []))],
    ...(override.privacy_level && { privacyLevel: override.privacy_level }),
  };
}

/** The caption, then a blank line and the hashtags as `#tag` words (stored without the `#`). */
export function postText(caption: string, hashtags: readonly string[]): string {
  if (hashtags.length === 0) return caption;
  return `${caption}\n\n${hashtags.map((tag) => `#${tag}`).join(' ')}`;
}

/**
 * Media each content type cannot go out without, on every platform: a carousel or slideshow is a
 * sequence (two items at least), a text post needs none, every other type is built on one image or
 * video.
 */
const MIN_MEDIA_BY_CONTENT_TYPE: Record<ContentType, number> = {
  text_only: 0,
  single_image: 1,
  slideshow: 2,
  reel: 1,
  talking_head: 1,
  video_hook: 1,
  video_hook_demo: 1,
  carousel: 2,
};

/** Why the post lacks the media its content type needs, or null. */
export function contentTypeMediaError(post: Pick<PlatformPost, 'contentType' | 'mediaUrls'>): string | null {
  const shortfall = contentTypeMediaShortfall(post);
  if (!shortfall) return null;
  return `content type ${post.contentType} needs at least ${shortfall.needed} media_urls; this post has ${shortfall.has}`;
}

/** How many media the post's content type needs and how many it has, when it has fewer; else null. */
export function contentTypeMediaShortfall(
  post: Pick<PlatformPost, 'contentType' | 'mediaUrls'>,
): { needed: number; has: number } | null {
  const needed = MIN_MEDIA_BY_CONTENT_TYPE[post.contentType];
  const has = post.mediaUrls.length;
  return has >= needed ? null : { needed, has };
}

/**
 * The post's media URLs that name a video file by their path's ending: the media library's URLs end
 * in the extension of the type sniffed at upload (media/serialize.ts), so this judges them before any
 * download; the publish judges the bytes again.
 */
export function videoMediaUrls(post: Pick<PlatformPost, 'mediaUrls'>): string[] {
  return post.mediaUrls.filter((url) => {
    let path: string;
    try {
      path = new URL(url).pathname;
    } catch {
      return false;
    }
    return VIDEO_PATH.test(path);
  });
}

const VIDEO_PATH = /\.(mp4|m4v|mov|webm)$/i;
