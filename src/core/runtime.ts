import { openConfiguredDatabase, type Db } from '../../db/client.ts';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import type { Runtime } from './context.ts';
import { createLogger, type Logger } from './log.ts';
import { Outcomes } from './outcomes.ts';
import { seedTemplates } from './templates/seed.ts';
import { isJob, JOBS, Wakeups } from './wakeups.ts';

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
  // Other processes' wake-ups wake this one's schedulers, without being sent on again. After the
  // store's connection was down any job may have been woken unheard: all are woken once.
  db.$store.listen?.(
    (job) => {
      if (isJob(job)) wakeups.wake(job);
    },
    () => {
      for (const job of JOBS) wakeups.wake(job);
    },
  );
  return {
    config,
    clock: options.clock ?? systemClock,
    db,
    wakeups,
    log: options.log ?? createLogger({ level: config.logLevel }),
    outcomes: new Outcomes(),
    wake: (job) => {
      // This process's schedulers read at once: only once the work that woke them is committed.
      db.$store.whenCommitted(() => wakeups.wake(job));
      db.$store.notify?.(job);
    },
  };
}
