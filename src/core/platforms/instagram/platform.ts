import { z } from 'zod';
import { definePlatform, withoutTrailingSlash } from '../platform-entry.ts';
import { instagramOAuth } from './oauth.ts';
import { instagramPublisher, MAX_CAROUSEL } from './publisher.ts';

/** Instagram professional accounts, with Instagram Login. */
export const instagramPlatform = definePlatform({
  id: 'instagram',
  name: 'Instagram',
  rules: { maxText: 2_200, textMeasure: 'code-points', maxMedia: MAX_CAROUSEL, mediaRequired: true, maxHashtags: 30 },
  variables: {
    INSTAGRAM_APP_ID: z.string().min(1).optional(),
    INSTAGRAM_APP_SECRET: z.string().min(1).optional(),
    INSTAGRAM_AUTH_BASE_URL: z.url().default('https://www.instagram.com'),
    INSTAGRAM_TOKEN_BASE_URL: z.url().default('https://api.instagram.com'),
    INSTAGRAM_GRAPH_BASE_URL: z.url().default('https://graph.instagram.com'),
  },
  readConfig: (env) => ({
    clientId: env.INSTAGRAM_APP_ID ?? null,
    clientSecret: env.INSTAGRAM_APP_SECRET ?? null,
    authBaseUrl: withoutTrailingSlash(env.INSTAGRAM_AUTH_BASE_URL),
    /** Where the code is exchanged; everything else is on the Graph host (`apiBaseUrl`). */
    tokenBaseUrl: withoutTrailingSlash(env.INSTAGRAM_TOKEN_BASE_URL),
    apiBaseUrl: withoutTrailingSlash(env.INSTAGRAM_GRAPH_BASE_URL),
    credentialVariables: ['INSTAGRAM_APP_ID', 'INSTAGRAM_APP_SECRET'] as const,
  }),
  connect: 'oauth',
  oauth: (config, { timeoutMs, clock }) => instagramOAuth(config, timeoutMs, clock),
  publisher: (config, { clock }) => instagramPublisher(config, { now: () => clock.now() }),
});
