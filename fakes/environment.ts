/**
 * The service's variables that point its live connectors at running fakes: one place that knows each
 * platform's variable names, for the development mode and for every test that starts fakes.
 */
import type { FakeFacebook } from './facebook.ts';
import type { FakeInstagram } from './instagram.ts';
import type { FakeLinkedIn } from './linkedin.ts';
import type { FakeTikTok } from './tiktok.ts';
import type { FakeX } from './x.ts';

export interface RunningFakes {
  x?: FakeX;
  linkedin?: FakeLinkedIn;
  facebook?: FakeFacebook;
  instagram?: FakeInstagram;
  tiktok?: FakeTikTok;
}

export function fakePlatformEnvironment(fakes: RunningFakes): Record<string, string> {
  const env: Record<string, string> = {};
  if (fakes.x) {
    Object.assign(env, {
      X_CLIENT_ID: fakes.x.clientId,
      X_CLIENT_SECRET: fakes.x.clientSecret,
      X_AUTH_BASE_URL: fakes.x.url,
      X_API_BASE_URL: fakes.x.url,
    });
  }
  if (fakes.linkedin) {
    Object.assign(env, {
      LINKEDIN_CLIENT_ID: fakes.linkedin.clientId,
      LINKEDIN_CLIENT_SECRET: fakes.linkedin.clientSecret,
      LINKEDIN_AUTH_BASE_URL: fakes.linkedin.url,
      LINKEDIN_API_BASE_URL: fakes.linkedin.url,
      LINKEDIN_VERSION: fakes.linkedin.activeVersions()[0]!,
    });
  }
  if (fakes.facebook) {
    Object.assign(env, {
      FACEBOOK_APP_ID: fakes.facebook.appId,
      FACEBOOK_APP_SECRET: fakes.facebook.appSecret,
      FACEBOOK_AUTH_BASE_URL: fakes.facebook.url,
      FACEBOOK_GRAPH_BASE_URL: fakes.facebook.url,
      FACEBOOK_GRAPH_VIDEO_BASE_URL: fakes.facebook.videoUrl,
    });
  }
  if (fakes.instagram) {
    Object.assign(env, {
      INSTAGRAM_APP_ID: fakes.instagram.clientId,
      INSTAGRAM_APP_SECRET: fakes.instagram.clientSecret,
      INSTAGRAM_AUTH_BASE_URL: fakes.instagram.url,
      INSTAGRAM_TOKEN_BASE_URL: fakes.instagram.url,
      INSTAGRAM_GRAPH_BASE_URL: fakes.instagram.url,
    });
  }
  if (fakes.tiktok) {
    Object.assign(env, {
      TIKTOK_CLIENT_KEY: fakes.tiktok.clientKey,
      TIKTOK_CLIENT_SECRET: fakes.tiktok.clientSecret,
      TIKTOK_AUTH_BASE_URL: fakes.tiktok.url,
      TIKTOK_API_BASE_URL: fakes.tiktok.url,
    });
  }
  return env;
}
