/**
 * The live connectors and late-URL look-ups of every platform, built from the platform registry with
 * what refreshing each platform's tokens takes.
 */
import type { Platform } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { liveClient } from '../platforms/registry.ts';
import { tokenSourceFor } from '../social-accounts/token-lifecycle.ts';
import type { LiveClientLookup } from './late-urls.ts';
import { liveConnector, type LiveConnector } from './live-connector.ts';

/** Each platform's live connector, made once per platform. */
export function liveConnectorsFor(runtime: Runtime): (platform: Platform) => LiveConnector {
  const made = new Map<Platform, LiveConnector>();
  return (platform) => {
    let connector = made.get(platform);
    if (!connector) {
      connector = liveConnector(
        runtime,
        liveClient(runtime.config, runtime.clock, platform),
        tokenSourceFor(runtime, platform),
      );
      made.set(platform, connector);
    }
    return connector;
  };
}

/** Each platform's live client with what refreshing its tokens takes, for the maintenance passes. */
export function liveClientLookup(runtime: Pick<Runtime, 'config' | 'clock'>): LiveClientLookup {
  return (platform) => ({
    client: liveClient(runtime.config, runtime.clock, platform),
    source: tokenSourceFor(runtime, platform),
  });
}
