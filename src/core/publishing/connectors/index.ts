import { type Platform } from '../../../../db/schema/index.ts';
import { PLATFORMS } from '../../platforms/registry.ts';
import type { Runtime } from '../../context.ts';
import type { Connectors, PlatformConnector } from '../connector.ts';
import { liveConnectorsFor } from '../live-clients.ts';
import type { LiveConnector } from '../live-connector.ts';
import { sandboxConnector } from './sandbox.ts';

/**
 * The connector for every known platform. Each publishes a sandbox account's posts through the
 * sandbox (which accepts exactly what the real platform would) and a live account's through the
 * platform's real client, where there is one. Both judge a post by the same platform rules.
 */
export function connectorsFor(
  runtime: Runtime,
  live: (platform: Platform) => LiveConnector | null = liveConnectorsFor(runtime),
): Connectors {
  return new Map(
    PLATFORMS.map((platform) => [platform, byAccountMode(sandboxConnector(runtime, platform), live(platform))]),
  );
}

function byAccountMode(sandbox: PlatformConnector, live: LiveConnector | null): PlatformConnector {
  const { platform } = sandbox;
  return {
    platform,
    validate: sandbox.validate,
    publish: (post, target) => {
      if (target.account.mode === 'sandbox') return sandbox.publish(post, target);
      if (live) return live.publish(post, target);
      return Promise.resolve({
        status: 'rejected',
        error: `${platform}: this service has no live client for ${platform} yet; connect a sandbox account to try it.`,
      });
    },
  };
}
