import { openDatabase, type Db } from '../../db/client.ts';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import type { Runtime } from './context.ts';

/** Opens the database named by the configuration and assembles what every door shares. */
export function openRuntime(options: { config?: Config; clock?: Clock; db?: Db } = {}): Runtime {
  const config = options.config ?? loadConfig();
  return {
    config,
    clock: options.clock ?? systemClock,
    db: options.db ?? openDatabase(config.databaseFile),
    wake: () => {},
  };
}
