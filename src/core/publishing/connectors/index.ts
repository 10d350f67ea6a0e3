import { PLATFORMS } from '../../../../db/schema/index.ts';
import type { Runtime } from '../../context.ts';
import type { Connectors } from '../connector.ts';
import { sandboxConnector } from './sandbox.ts';

/**
 * The connector for every known platform. Each is the sandbox, which accepts exactly what the real
 * platform would, until a real connector is configured; a real one would replace its entry here.
 */
export function connectorsFor(runtime: Runtime): Connectors {
  return new Map(PLATFORMS.map((platform) => [platform, sandboxConnector(runtime, platform)]));
}
