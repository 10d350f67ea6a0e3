import { openDatabase } from '../../db/client.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { Runtime } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';

export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
/** Where a test runtime's clock starts unless told otherwise. */
export const TEST_START = '2026-03-10T12:00:30.000Z';

export interface TestRuntime extends Runtime {
  clock: ManualClock;
}

/**
 * A fresh in-memory database migrated with the real migrations, a clock that only moves when told,
 * and configuration from `env` (the spec's defaults otherwise).
 */
export function testRuntime(
  options: { env?: Record<string, string>; start?: string; file?: string } = {},
): TestRuntime {
  const clock = new ManualClock(options.start ?? TEST_START);
  // A fixed key, so no test writes a generated key file into the repository's data directory.
  // Warnings and errors only: an access line per request would bury the test output.
  const config = loadConfig({
    PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'warn',
    ...options.env,
  });
  const runtime = openRuntime({ config, clock, db: openDatabase(options.file ?? ':memory:') });
  return { ...runtime, clock };
}
