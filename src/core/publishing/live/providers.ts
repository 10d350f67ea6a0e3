/**
 * Which platforms have a live client, and each one's OAuth steps and registered app as configured.
 * The connect flow and the publishing framework both start here, so a platform is live in one place.
 */
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { facebookOAuth } from './facebook/oauth.ts';
import { instagramOAuth } from './instagram/oauth.ts';
import { tiktokOAuth } from './tiktok/oauth.ts';
import { linkedInOAuth } from './linkedin/oauth.ts';
import type { OAuthApp, OAuthProvider } from './platform-client.ts';
import { xOAuth } from './x/oauth.ts';

export const LIVE_PLATFORMS = ['twitter', 'linkedin', 'facebook', 'instagram', 'tiktok'] as const;

type LivePlatform = (typeof LIVE_PLATFORMS)[number];

const isLive = (platform: string): platform is LivePlatform => (LIVE_PLATFORMS as readonly string[]).includes(platform);

/** The platform's OAuth steps, against its configured hosts; null when the platform has no live client. */
export function oauthProvider(config: Config, clock: Clock, platform: string): OAuthProvider | null {
  if (!isLive(platform)) return null;
  const timeoutMs = config.publishing.platformTimeoutSeconds * 1000;
  switch (platform) {
    case 'twitter':
      return xOAuth(config.live.twitter, timeoutMs, clock);
    case 'linkedin':
      return linkedInOAuth(config.live.linkedin, timeoutMs, clock);
    case 'facebook':
      return facebookOAuth(config.live.facebook, timeoutMs, clock);
    case 'instagram':
      return instagramOAuth(config.live.instagram, timeoutMs, clock);
    case 'tiktok':
      return tiktokOAuth(config.live.tiktok, timeoutMs, clock);
  }
}

/**
 * The registered app of a live platform, with the callback URL the service serves; null when the
 * platform has no live client or its client id or secret is unset.
 */
export function oauthApp(config: Config, platform: string): OAuthApp | null {
  if (!isLive(platform)) return null;
  const { clientId, clientSecret } = config.live[platform];
  if (!clientId || !clientSecret) return null;
  return { clientId, clientSecret, redirectUri: `${config.publicBaseUrl}/callbacks/${platform}/oauth` };
}
