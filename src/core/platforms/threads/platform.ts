import { z } from 'zod';
import { definePlatform, withoutTrailingSlash } from '../platform-entry.ts';
import { threadsOAuth } from './oauth.ts';
import { MAX_CAROUSEL, threadsPublisher } from './publisher.ts';

/** Threads, Meta's: OAuth, and containers as on Instagram (meta/). */
export const threadsPlatform = definePlatform({
  id: 'threads',
  name: 'Threads',
  rules: {
    maxText: 500,
    textMeasure: 'emoji-bytes',
    maxMedia: MAX_CAROUSEL,
    mediaRequired: false,
    maxHashtags: null,
    maxLinks: 5,
  },
  variables: {
    THREADS_APP_ID: z.string().min(1).optional(),
    THREADS_APP_SECRET: z.string().min(1).optional(),
    THREADS_AUTH_BASE_URL: z.url().default('https://threads.net'),
    THREADS_GRAPH_BASE_URL: z.url().default('https://graph.threads.net'),
  },
  readConfig: (env) => ({
    clientId: env.THREADS_APP_ID ?? null,
    clientSecret: env.THREADS_APP_SECRET ?? null,
    authBaseUrl: withoutTrailingSlash(env.THREADS_AUTH_BASE_URL),
    apiBaseUrl: withoutTrailingSlash(env.THREADS_GRAPH_BASE_URL),
    credentialVariables: ['THREADS_APP_ID', 'THREADS_APP_SECRET'] as const,
  }),
  connect: 'oauth',
  oauth: (config, { timeoutMs, clock }) => threadsOAuth(config, timeoutMs, clock),
  publisher: (config, { clock }) => threadsPublisher(config, { now: () => clock.now() }),
});
