import { openDatabase, type Db } from '../../db/client.ts';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import type { Runtime } from './context.ts';
import { Wakeups } from './wakeups.ts';

/** Opens the database named by the configuration and assembles what every door shares. */
export function openRuntime(options: { config?: Config; clock?: Clock; db?: Db } = {}): Runtime {
  const config = options.config ?? loadConfig();
  const wakeups = new Wakeups();
  return {
    config,
    clock: options.clock ?? systemClock,
    db: options.db ?? openDatabase(config.databaseFile),
    wakeups,
    wake: (job) => wakeups.wake(job),
  };
}
