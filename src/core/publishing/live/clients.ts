import type { Platform } from '../../../../db/schema/index.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Runtime } from '../../context.ts';
import type { TokenSource } from '../../social-accounts/token-lifecycle.ts';
import { liveConnector, type LiveConnector } from './live-connector.ts';
import type { LivePlatformClient } from './platform-client.ts';

/** How messages name each platform. */
export const PLATFORM_NAMES: Record<Platform, string> = {
  twitter: 'X',
  linkedin: 'LinkedIn',
  facebook: 'Facebook',
  instagram: 'Instagram',
  tiktok: 'TikTok',
};

/** The platform's real client, or null where the service has none yet. */
export function liveClient(_config: Config, _clock: Clock, _platform: Platform): LivePlatformClient | null {
  return null;
}

/** What refreshing a live account's token takes, or null for a platform without a live client. */
export function tokenSourceFor(runtime: Pick<Runtime, 'config' | 'clock'>, platform: Platform): TokenSource | null {
  const client = liveClient(runtime.config, runtime.clock, platform);
  if (!client) return null;
  return { platformName: PLATFORM_NAMES[platform], provider: client.oauth, app: null };
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
