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
 * platform's real client. Both judge a post by the same platform rules.
 */
export function connectorsFor(
  runtime: Runtime,
  live: (platform: Platform) => LiveConnector = liveConnectorsFor(runtime),
): Connectors {
  return new Map(
    PLATFORMS.map((platform) => [platform, byAccountMode(sandboxConnector(runtime, platform), live(platform))]),
  );
}

/** Every registry entry has a live client, so a live account always has a connector to go to. */
function byAccountMode(sandbox: PlatformConnector, live: LiveConnector): PlatformConnector {
  return {
    platform: sandbox.platform,
    validate: sandbox.validate,
    publish: (post, target) =>
      target.account.mode === 'sandbox' ? sandbox.publish(post, target) : live.publish(post, target),
  };
}
