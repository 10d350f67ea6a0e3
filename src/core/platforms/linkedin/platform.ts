import { z } from 'zod';
import { definePlatform, withoutTrailingSlash } from '../platform-entry.ts';
import { linkedInOAuth } from './oauth.ts';
import { linkedInPublisher } from './publisher.ts';

/** The LinkedIn API version (YYYYMM) sent in `LinkedIn-Version`; LinkedIn serves each one for a year. */
export const DEFAULT_LINKEDIN_VERSION = '202610';

export const linkedInPlatform = definePlatform({
  id: 'linkedin',
  name: 'LinkedIn',
  rules: { maxText: 3_000, textMeasure: 'code-points', maxMedia: 20, mediaRequired: false, maxHashtags: null },
  variables: {
    LINKEDIN_CLIENT_ID: z.string().min(1).optional(),
    LINKEDIN_CLIENT_SECRET: z.string().min(1).optional(),
    LINKEDIN_AUTH_BASE_URL: z.url().default('https://www.linkedin.com'),
    LINKEDIN_API_BASE_URL: z.url().default('https://api.linkedin.com'),
    LINKEDIN_VERSION: z
      .string()
      .regex(/^\d{6}$/, 'expected a version as YYYYMM, for example 202610')
      .default(DEFAULT_LINKEDIN_VERSION),
  },
  readConfig: (env) => ({
    clientId: env.LINKEDIN_CLIENT_ID ?? null,
    clientSecret: env.LINKEDIN_CLIENT_SECRET ?? null,
    authBaseUrl: withoutTrailingSlash(env.LINKEDIN_AUTH_BASE_URL),
    apiBaseUrl: withoutTrailingSlash(env.LINKEDIN_API_BASE_URL),
    credentialVariables: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'] as const,
    version: env.LINKEDIN_VERSION,
  }),
  connect: 'oauth',
  oauth: (config, { timeoutMs, clock }) => linkedInOAuth(config, timeoutMs, clock),
  publisher: (config) => linkedInPublisher(config),
});
