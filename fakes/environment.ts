/**
 * The service's variables that point its live connectors at running fakes: one place that knows each
 * platform's variable names, for the development mode and for every test that starts fakes.
 */
import type { FakeLinkedIn } from './linkedin.ts';
import type { FakeX } from './x.ts';

export interface RunningFakes {
  x?: FakeX;
  linkedin?: FakeLinkedIn;
}

export function fakePlatformEnvironment(fakes: RunningFakes): Record<string, string> {
  const env: Record<string, string> = {};
  if (fakes.x) {
    Object.assign(env, {
      X_CLIENT_ID: fakes.x.clientId,
      X_CLIENT_SECRET: fakes.x.clientSecret,
      X_AUTH_BASE_URL: fakes.x.url,
      X_API_BASE_URL: fakes.x.url,
    });
  }
  if (fakes.linkedin) {
    Object.assign(env, {
      LINKEDIN_CLIENT_ID: fakes.linkedin.clientId,
      LINKEDIN_CLIENT_SECRET: fakes.linkedin.clientSecret,
      LINKEDIN_AUTH_BASE_URL: fakes.linkedin.url,
      LINKEDIN_API_BASE_URL: fakes.linkedin.url,
      LINKEDIN_VERSION: fakes.linkedin.activeVersions()[0]!,
    });
  }
  return env;
}
