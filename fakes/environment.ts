/**
 * The service's variables that point its live connectors at running fakes, for the development mode
 * and for every test that starts fakes. Each platform's variable names are in its fake's entry
 * (platforms.ts).
 */
import { FAKE_PLATFORMS, type RunningFakesByKey } from './platforms.ts';

export type RunningFakes = Partial<RunningFakesByKey>;

export function fakePlatformEnvironment(fakes: RunningFakes): Record<string, string> {
  const env: Record<string, string> = {};
  for (const fakePlatform of Object.values(FAKE_PLATFORMS)) {
    const fake = fakes[fakePlatform.key];
    // Each entry's `environment` takes its own fake: the key pairs them.
    if (fake) Object.assign(env, (fakePlatform.environment as (running: typeof fake) => Record<string, string>)(fake));
  }
  return env;
}
