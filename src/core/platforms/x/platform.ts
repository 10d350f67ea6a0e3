import { z } from 'zod';
import { definePlatform, withoutTrailingSlash } from '../platform-entry.ts';
import { xOAuth } from './oauth.ts';
import { xPublisher } from './publisher.ts';

/** X (`twitter`, the id the first release stored). */
export const xPlatform = definePlatform({
  id: 'twitter',
  name: 'X',
  rules: { maxText: 280, textMeasure: 'x-weighted', maxMedia: 4, mediaRequired: false, maxHashtags: null },
  handle: (profile) => `@${profile.username}`,
  variables: {
    X_CLIENT_ID: z.string().min(1).optional(),
    X_CLIENT_SECRET: z.string().min(1).optional(),
    X_AUTH_BASE_URL: z.url().default('https://x.com'),
    X_API_BASE_URL: z.url().default('https://api.x.com'),
  },
  readConfig: (env) => ({
    clientId: env.X_CLIENT_ID ?? null,
    clientSecret: env.X_CLIENT_SECRET ?? null,
    authBaseUrl: withoutTrailingSlash(env.X_AUTH_BASE_URL),
    apiBaseUrl: withoutTrailingSlash(env.X_API_BASE_URL),
    credentialVariables: ['X_CLIENT_ID', 'X_CLIENT_SECRET'] as const,
  }),
  connect: 'oauth',
  oauth: (config, { timeoutMs, clock }) => xOAuth(config, timeoutMs, clock),
  publisher: (config, { clock }) => xPublisher(config, { now: () => clock.now() }),
});
