import { z } from 'zod';
import { definePlatform, withoutTrailingSlash } from '../platform-entry.ts';
import { tiktokOAuth } from './oauth.ts';
import { tiktokPublisher } from './publisher.ts';

export const tiktokPlatform = definePlatform({
  id: 'tiktok',
  name: 'TikTok',
  rules: { maxText: 2_200, textMeasure: 'code-points', maxMedia: 35, mediaRequired: true, maxHashtags: null },
  variables: {
    TIKTOK_CLIENT_KEY: z.string().min(1).optional(),
    TIKTOK_CLIENT_SECRET: z.string().min(1).optional(),
    TIKTOK_AUTH_BASE_URL: z.url().default('https://www.tiktok.com'),
    TIKTOK_API_BASE_URL: z.url().default('https://open.tiktokapis.com'),
  },
  readConfig: (env) => ({
    clientId: env.TIKTOK_CLIENT_KEY ?? null,
    clientSecret: env.TIKTOK_CLIENT_SECRET ?? null,
    authBaseUrl: withoutTrailingSlash(env.TIKTOK_AUTH_BASE_URL),
    apiBaseUrl: withoutTrailingSlash(env.TIKTOK_API_BASE_URL),
    credentialVariables: ['TIKTOK_CLIENT_KEY', 'TIKTOK_CLIENT_SECRET'] as const,
  }),
  connect: 'oauth',
  oauth: (config, { timeoutMs, clock }) => tiktokOAuth(config, timeoutMs, clock),
  publisher: (config, { clock }) => tiktokPublisher(config, { now: () => clock.now() }),
});
