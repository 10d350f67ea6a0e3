import { describe, expect, it } from 'vitest';
import { UsageGovernor, type UsageOwner } from '../../../src/core/platforms/meta/usage.ts';
import { PlatformError, type LiveSession } from '../../../src/core/platforms/platform-client.ts';

const NOW = new Date('2026-03-10T12:00:00.000Z');

/** A session whose wait is past the retry window, as the live connector's is for a long pause. */
const impatientSession = () =>
  ({ wait: () => Promise.reject(new PlatformError('transient', 'past the retry window')) }) as unknown as LiveSession;

describe("Meta's usage governor names the platform it paces", () => {
  const owners: UsageOwner[] = [
    { platform: 'Facebook', account: 'Page' },
    { platform: 'Instagram', account: 'account' },
    { platform: 'Threads', account: 'account' },
  ];

  for (const owner of owners) {
    it(`a pause past the retry window is rate_limited and names ${owner.platform}`, async () => {
      const governor = new UsageGovernor(() => NOW, owner);
      governor.observe(new Headers({ 'x-app-usage': '{"call_count":95,"total_cputime":1,"total_time":1}' }), 'acct-1');
      const error = await governor.pace(impatientSession(), 'acct-1').then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).kind).toBe('rate_limited');
      expect((error as PlatformError).message).toMatch(
        new RegExp(`^${owner.platform} reports this app's or ${owner.account}'s API usage at 95 %`),
      );
      for (const other of owners.filter((candidate) => candidate.platform !== owner.platform)) {
        expect((error as PlatformError).message).not.toContain(other.platform);
      }
    });
  }
});
