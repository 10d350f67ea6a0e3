import type { Platform } from '../../../../db/schema/index.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Runtime } from '../../context.ts';
import type { TokenSource } from '../../social-accounts/token-lifecycle.ts';
import { facebookPublisher } from './facebook/publisher.ts';
import { instagramPublisher } from './instagram/publisher.ts';
import { linkedInPublisher } from './linkedin/publisher.ts';
import { tiktokPublisher } from './tiktok/publisher.ts';
import type { LiveClientLookup } from './late-urls.ts';
import { liveConnector, type LiveConnector } from './live-connector.ts';
import type { LivePlatformClient, LivePublisher } from './platform-client.ts';
import { oauthApp, oauthProvider } from './providers.ts';
import { xPublisher } from './x/publisher.ts';

/** How messages name each platform. */
export const PLATFORM_NAMES: Record<Platform, string> = {
  twitter: 'X',
  linkedin: 'LinkedIn',
  facebook: 'Facebook',
  instagram: 'Instagram',
  tiktok: 'TikTok',
};

/** The platform's real client against its configured hosts, or null where the service has none yet. */
export function liveClient(config: Config, clock: Clock, platform: Platform): LivePlatformClient | null {
  const oauth = oauthProvider(config, clock, platform);
  const publisher = publisherFor(config, clock, platform);
  return oauth && publisher ? { oauth, publisher } : null;
}

function publisherFor(config: Config, clock: Clock, platform: Platform): LivePublisher | null {
  switch (platform) {
    case 'twitter':
      return xPublisher(config.live.twitter, { now: () => clock.now() });
    case 'linkedin':
      return linkedInPublisher(config.live.linkedin);
    case 'facebook':
      return facebookPublisher(config.live.facebook, { now: () => clock.now() });
    case 'instagram':
      return instagramPublisher(config.live.instagram, { now: () => clock.now() });
    case 'tiktok':
      return tiktokPublisher(config.live.tiktok, { now: () => clock.now() });
  }
}

/** What refreshing a live account's token takes, or null for a platform without a live client. */
export function tokenSourceFor(runtime: Pick<Runtime, 'config' | 'clock'>, platform: Platform): TokenSource | null {
  const client = liveClient(runtime.config, runtime.clock, platform);
  if (!client) return null;
  return {
    platformName: PLATFORM_NAMES[platform],
    provider: client.oauth,
    app: oauthApp(runtime.config, platform),
    credentialVariables: runtime.config.live[platform].credentialVariables,
  };
}

/** Each platform's live connector (made once per platform), or null where there is no live client. */
export function liveConnectorsFor(runtime: Runtime): (platform: Platform) => LiveConnector | null {
  const made = new Map<Platform, LiveConnector | null>();
  return (platform) => {
    if (!made.has(platform)) {
      const client = liveClient(runtime.config, runtime.clock, platform);
      const source = tokenSourceFor(runtime, platform);
      made.set(platform, client && source ? liveConnector(runtime, client, source) : null);
    }
    return made.get(platform)!;
  };
}

/** Each platform's live client with what refreshing its tokens takes, for the maintenance passes. */
export function liveClientLookup(runtime: Pick<Runtime, 'config' | 'clock'>): LiveClientLookup {
  return (platform) => {
    const client = liveClient(runtime.config, runtime.clock, platform);
    const source = tokenSourceFor(runtime, platform);
    return client && source ? { client, source } : null;
  };
}
