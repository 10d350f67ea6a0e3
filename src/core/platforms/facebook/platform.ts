import { z } from 'zod';
import { definePlatform, withoutTrailingSlash } from '../platform-entry.ts';
import { facebookOAuth } from './oauth.ts';
import { facebookPublisher } from './publisher.ts';

/** The Graph API version (`vNN.0`) for Facebook; Meta serves each for about two years. */
export const DEFAULT_FACEBOOK_GRAPH_VERSION = 'v24.0';

/** Facebook Pages. */
export const facebookPlatform = definePlatform({
  id: 'facebook',
  name: 'Facebook',
  rules: { maxText: 63_206, textMeasure: 'code-points', maxMedia: 10, mediaRequired: false, maxHashtags: null },
  variables: {
    FACEBOOK_APP_ID: z.string().min(1).optional(),
    // The same secret verifies Facebook's deauthorization callbacks (Config.appSecrets).
    FACEBOOK_APP_SECRET: z.string().min(1).optional(),
    FACEBOOK_AUTH_BASE_URL: z.url().default('https://www.facebook.com'),
    FACEBOOK_GRAPH_BASE_URL: z.url().default('https://graph.facebook.com'),
    FACEBOOK_GRAPH_VIDEO_BASE_URL: z.url().default('https://graph-video.facebook.com'),
    FACEBOOK_GRAPH_VERSION: z
      .string()
      .regex(/^v\d+\.0$/, 'expected a Graph API version such as v24.0')
      .default(DEFAULT_FACEBOOK_GRAPH_VERSION),
  },
  readConfig: (env) => ({
    clientId: env.FACEBOOK_APP_ID ?? null,
    clientSecret: env.FACEBOOK_APP_SECRET ?? null,
    authBaseUrl: withoutTrailingSlash(env.FACEBOOK_AUTH_BASE_URL),
    /** The Graph API host; videos go to their own host. */
    apiBaseUrl: withoutTrailingSlash(env.FACEBOOK_GRAPH_BASE_URL),
    graphVideoBaseUrl: withoutTrailingSlash(env.FACEBOOK_GRAPH_VIDEO_BASE_URL),
    graphVersion: env.FACEBOOK_GRAPH_VERSION,
    credentialVariables: ['FACEBOOK_APP_ID', 'FACEBOOK_APP_SECRET'] as const,
  }),
  connect: 'oauth',
  oauth: (config, { timeoutMs, clock }) => facebookOAuth(config, timeoutMs, clock),
  publisher: (config, { clock }) => facebookPublisher(config, { now: () => clock.now() }),
});
