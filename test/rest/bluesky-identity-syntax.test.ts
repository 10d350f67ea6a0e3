import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { socialAccounts } from '../../db/schema/index.ts';
import { startFakeBluesky, type FakeBluesky, type FakeBlueskyAccount } from '../../fakes/bluesky.ts';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, eventsOf, expectError } from '../helpers/rest-expect.ts';

/**
 * The account a Bluesky server says signed in is stored as it says (the username, the profile link,
 * the platform user id), so the connect refuses a handle or DID outside atproto's syntax.
 */
describe('connecting Bluesky: the handle and DID the server answers are checked', () => {
  const account = (name: string, fields: Partial<FakeBlueskyAccount>): FakeBlueskyAccount => ({
    did: `did:plc:${name}7a2b3c4d5e6f7g`,
    handle: `${name}.bsky.social`,
    email: `${name}@example.com`,
    appPassword: 'abcd-efgh-ijkl-mnop',
    ...fields,
  });
  const accounts = [
    account('script', { handle: '<script>alert(1)</script>.bsky.social' }),
    account('spaced', { handle: 'a b.bsky.social' }),
    account('long', { handle: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.social` }),
    account('nodot', { handle: 'localhost' }),
    account('scheme', { did: 'javascript:alert(1)' }),
    account('markupdid', { did: 'did:plc:<img src=x onerror=alert(1)>' }),
    account('upper', { handle: 'Upper.BSKY.social' }),
  ];

  let bluesky: FakeBluesky;
  const env: Record<string, string> = { ...baseEnv };
  const bed = useRestTestbed({ env });

  beforeAll(async () => {
    bluesky = await startFakeBluesky({ accounts });
    Object.assign(env, fakePlatformEnvironment({ bluesky }));
  });
  afterAll(async () => {
    await bluesky.close();
  });

  const connect = (email: string) =>
    call(bed.server, 'POST', '/api/v1/social-accounts/connect', {
      headers: bed.ws.headers,
      body: { platform: 'bluesky', identifier: email, app_password: 'abcd-efgh-ijkl-mnop' },
    });

  it('refuses a handle with markup, spaces, past 253 characters or of one label, and a malformed DID: 502, nothing stored', async () => {
    for (const name of ['script', 'spaced', 'long', 'nodot', 'scheme', 'markupdid']) {
      const res = await connect(`${name}@example.com`);
      expectError(res, 502, 'platform_unavailable');
      expect(res.body.error.message, name).toMatch(/not a valid (handle|DID)/);
      expect(res.body.error.message, name).not.toMatch(/<|javascript/);
    }
    expect(await bed.runtime.db.select().from(socialAccounts).all()).toEqual([]);
    expect((await eventsOf(bed.runtime, bed.ws.workspace.id)).map((event) => event.type)).not.toContain(
      'social_account.connected',
    );
  });

  it('keeps a valid handle in its lowercase form', async () => {
    const res = await connect('upper@example.com');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      username: 'upper.bsky.social',
      platform_user_id: 'did:plc:upper7a2b3c4d5e6f7g',
      profile_url: 'https://bsky.app/profile/upper.bsky.social',
    });
  });
});
