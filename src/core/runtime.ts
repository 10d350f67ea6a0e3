import { openConfiguredDatabase, type Db } from '../../db/client.ts';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import type { Runtime } from './context.ts';
import { createLogger, type Logger } from './log.ts';
import { Outcomes } from './outcomes.ts';
import { seedTemplates } from './templates/seed.ts';
import { Wakeups } from './wakeups.ts';

/** Opens the database named by the configuration and assembles what every door shares. */
export async function openRuntime(
  options: { config?: Config; clock?: Clock; db?: Db; log?: Logger } = {},
): Promise<Runtime> {
  const config = options.config ?? loadConfig();
  const wakeups = new Wakeups();
  const db = options.db ?? (await openConfiguredDatabase(config));
  // Here rather than in openDatabase: db/ sits below the core and cannot import it. Every process
  // (serve, mcp, admin, worker) and every test runtime comes through here; seeding costs well under
  // a millisecond once the file is validated (measured), so it runs on every open.
  await seedTemplates(db);
  return {
    config,
    clock: options.clock ?? systemClock,
    db,
    wakeups,
    log: options.log ?? createLogger({ level: config.logLevel }),
    outcomes: new Outcomes(),
    wake: (job) => wakeups.wake(job),
  };
}
