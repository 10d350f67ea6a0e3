import { afterEach, describe, expect, it } from 'vitest';
import { formatEnvironment, startDevPlatforms, type DevPlatforms } from '../../fakes/dev.ts';

let platforms: DevPlatforms | undefined;
afterEach(async () => {
  await platforms?.close();
});

describe('development mode', () => {
  it('starts the fakes and names the environment that points the connectors at them', async () => {
    platforms = await startDevPlatforms({
      ports: { x: 0, linkedin: 0, facebook: 0, instagram: 0, tiktok: 0, threads: 0, bluesky: 0 },
    });
    const env = platforms.environment;
    expect(Object.keys(env)).toEqual([
      'X_CLIENT_ID',
      'X_CLIENT_SECRET',
      'X_AUTH_BASE_URL',
      'X_API_BASE_URL',
      'LINKEDIN_CLIENT_ID',
      'LINKEDIN_CLIENT_SECRET',
      'LINKEDIN_AUTH_BASE_URL',
      'LINKEDIN_API_BASE_URL',
      'LINKEDIN_VERSION',
      'FACEBOOK_APP_ID',
      'FACEBOOK_APP_SECRET',
      'FACEBOOK_AUTH_BASE_URL',
      'FACEBOOK_GRAPH_BASE_URL',
      'FACEBOOK_GRAPH_VIDEO_BASE_URL',
      'INSTAGRAM_APP_ID',
      'INSTAGRAM_APP_SECRET',
      'INSTAGRAM_AUTH_BASE_URL',
      'INSTAGRAM_TOKEN_BASE_URL',
      'INSTAGRAM_GRAPH_BASE_URL',
      'TIKTOK_CLIENT_KEY',
      'TIKTOK_CLIENT_SECRET',
      'TIKTOK_AUTH_BASE_URL',
      'TIKTOK_API_BASE_URL',
      'THREADS_APP_ID',
      'THREADS_APP_SECRET',
      'THREADS_AUTH_BASE_URL',
      'THREADS_GRAPH_BASE_URL',
      'BLUESKY_SERVICE_URL',
    ]);
    expect(env.LINKEDIN_VERSION).toMatch(/^\d{6}$/);
    expect(formatEnvironment(env)).toContain(`X_API_BASE_URL=${platforms.x.url}\n`);
    const authorize = new URL('/i/oauth2/authorize', env.X_AUTH_BASE_URL);
    expect((await fetch(authorize)).status).toBe(400);
    const userinfo = await fetch(new URL('/v2/userinfo', env.LINKEDIN_API_BASE_URL));
    expect(userinfo.status).toBe(401);
  });
});
