import { z } from 'zod';
import { definePlatform, withoutTrailingSlash } from '../platform-entry.ts';
import { blueskyPublisher, MAX_IMAGES } from './publisher.ts';
import { blueskySessions } from './sessions.ts';

/** Bluesky (AT Protocol): an app password signs in once; the session is kept and renewed, never opened per post. */
export const blueskyPlatform = definePlatform({
  id: 'bluesky',
  name: 'Bluesky',
  rules: {
    maxText: 300,
    textMeasure: 'graphemes',
    maxTextBytes: 3_000,
    maxMedia: MAX_IMAGES,
    mediaRequired: false,
    maxHashtags: null,
    refusesVideo: true,
  },
  handle: (profile) => `@${profile.username}`,
  variables: {
    BLUESKY_SERVICE_URL: z.url().default('https://bsky.social'),
  },
  readConfig: (env) => ({ apiBaseUrl: withoutTrailingSlash(env.BLUESKY_SERVICE_URL) }),
  connect: 'credentials',
  sessions: (config, { timeoutMs, clock }) => blueskySessions(config, timeoutMs, clock),
  publisher: (config, { clock }) => blueskyPublisher(config, { now: () => clock.now() }),
});
