import { describe, expect, it } from 'vitest';
import { RateLimitError } from '../../../src/core/errors.ts';
import {
  checkSignIn,
  endSession,
  resolveSession,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  SIGN_IN_REFUSED,
  startSession,
} from '../../../src/core/people/sessions.ts';
import {
  DEVICE_COOKIE_LIFETIME_MS,
  SIGN_IN_FREE_FAILURES,
  signInDelayMs,
} from '../../../src/core/people/sign-in-limits.ts';
import { acceptInvitation, invitePerson, openInvitation } from '../../../src/core/people/invitations.ts';
import { issuePasswordReset, issueSetupLink, openLink, usePasswordLink } from '../../../src/core/people/users.ts';
import { makeWorkspace } from '../../helpers/factories.ts';
import { makePerson, TEST_PASSWORD } from '../../helpers/people.ts';
import { testRuntime } from '../../helpers/runtime.ts';

const tokenOf = (path: string) => new URL(path, 'http://x').searchParams.get('token')!;

describe('people: links, passwords, sign-in and sessions', () => {
  it('a setup link creates the first admin once, and only within 24 hours', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const token = tokenOf(await issueSetupLink(runtime, workspace.id));
    expect(await openLink(runtime, token, 'setup')).toMatchObject({ kind: 'setup', email: null });
    const used = await usePasswordLink(runtime, {
      token,
      kind: 'setup',
      email: 'Boss@Example.com ',
      password: TEST_PASSWORD,
    });
    expect(used).toEqual({ userId: expect.any(String), workspaceId: workspace.id });
    const again = await usePasswordLink(runtime, {
      token,
      kind: 'setup',
      email: 'other@example.com',
      password: TEST_PASSWORD,
    });
    expect(again).toMatchObject({ code: 'invalid_link', message: expect.stringContaining('already used') });
    expect(
      await checkSignIn(runtime, { email: 'boss@example.com', password: TEST_PASSWORD, address: '1.1.1.1' }),
    ).toMatchObject(used);

    const late = tokenOf(await issueSetupLink(runtime, workspace.id));
    runtime.clock.advance(24 * 60 * 60 * 1000);
    expect(await openLink(runtime, late, 'setup')).toMatchObject({ code: 'invalid_link' });
  });

  it('an invite link is not a setup link, and a too-short password is refused without spending it', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const invited = await invitePerson(runtime, {
      workspaceId: workspace.id,
      email: 'ed@example.com',
      role: 'editor',
      invitedBy: null,
    });
    const token = tokenOf(invited.path);
    expect(await openLink(runtime, token, 'setup')).toMatchObject({ code: 'invalid_link' });
    expect(
      await usePasswordLink(runtime, { token, kind: 'setup', email: 'x@example.com', password: TEST_PASSWORD }),
    ).toMatchObject({
      code: 'invalid_link',
      message: expect.stringContaining('not valid'),
    });
    expect(await acceptInvitation(runtime, { token, password: 'short', address: 'a' })).toMatchObject({
      code: 'weak_password',
      message: expect.stringContaining('at least 10'),
    });
    expect(await openInvitation(runtime, token)).toMatchObject({ email: 'ed@example.com', role: 'editor' });
    runtime.clock.advance(7 * 24 * 60 * 60 * 1000);
    expect(await openInvitation(runtime, token)).toMatchObject({ code: 'invalid_link' });
  });

  it('refuses an unknown email and a wrong password alike; failures slow their own address and email pair only', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const person = await makePerson(runtime, workspace.id, 'viewer');
    expect(await checkSignIn(runtime, { email: 'nobody@example.com', password: 'x', address: 'z' })).toMatchObject({
      code: 'sign_in_refused',
      message: SIGN_IN_REFUSED,
    });
    for (let i = 0; i < SIGN_IN_FREE_FAILURES; i++) {
      expect(
        await checkSignIn(runtime, { email: person.email, password: 'wrong password!', address: 'a' }),
      ).toMatchObject({
        code: 'sign_in_refused',
        message: SIGN_IN_REFUSED,
      });
    }
    // Past the free failures the pair waits, right password included, before the password is looked at...
    await expect(checkSignIn(runtime, { email: person.email, password: TEST_PASSWORD, address: 'a' })).rejects.toThrow(
      RateLimitError,
    );
    // ...but another address is not slowed by them, at this email or any other: the account is not locked.
    expect(await checkSignIn(runtime, { email: person.email, password: TEST_PASSWORD, address: 'b' })).toMatchObject({
      userId: person.userId,
    });
    expect(await checkSignIn(runtime, { email: 'nobody@example.com', password: 'x', address: 'b' })).toMatchObject({
      code: 'sign_in_refused',
      message: SIGN_IN_REFUSED,
    });
    // The wait doubles with each failure past the free ones, up to a ceiling.
    expect([5, 6, 7, 8, 9, 10, 30].map((n) => signInDelayMs(n, SIGN_IN_FREE_FAILURES) / 1000)).toEqual([
      30, 60, 120, 240, 480, 900, 900,
    ]);
    runtime.clock.advance(30 * 1000);
    expect(await checkSignIn(runtime, { email: person.email, password: TEST_PASSWORD, address: 'a' })).toMatchObject({
      userId: person.userId,
    });
  });

  it('a device cookie from a sign-in vouches for its browser at that email only, until it expires', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const person = await makePerson(runtime, workspace.id, 'viewer');
    const other = await makePerson(runtime, workspace.id, 'viewer');
    const signedIn = await checkSignIn(runtime, { email: person.email, password: TEST_PASSWORD, address: 'a' });
    if (!('device' in signedIn)) throw new Error('not signed in');
    for (let i = 0; i < SIGN_IN_FREE_FAILURES; i++) {
      await checkSignIn(runtime, { email: person.email, password: 'wrong password!', address: 'a' });
      await checkSignIn(runtime, { email: other.email, password: 'wrong password!', address: 'a' });
    }
    const withCookie = (email: string, device: string) =>
      checkSignIn(runtime, { email, password: TEST_PASSWORD, address: 'a', device });
    await expect(withCookie(other.email, signedIn.device)).rejects.toThrow(RateLimitError);
    const again = await withCookie(person.email, signedIn.device);
    expect(again).toMatchObject({ userId: person.userId, device: expect.any(String) });
    runtime.clock.advance(DEVICE_COOKIE_LIFETIME_MS);
    for (let i = 0; i < SIGN_IN_FREE_FAILURES; i++) {
      await checkSignIn(runtime, { email: person.email, password: 'wrong password!', address: 'a' });
    }
    await expect(withCookie(person.email, (again as { device: string }).device)).rejects.toThrow(RateLimitError);
  });

  it('a session ends at sign-out, after idle time, and at its absolute expiry', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const person = await makePerson(runtime, workspace.id, 'approver');
    const token = await startSession(runtime, person.userId, workspace.id);
    expect((await resolveSession(runtime, token))?.principal).toMatchObject({ type: 'user', role: 'approver' });
    await endSession(runtime, token);
    expect(await resolveSession(runtime, token)).toBeNull();

    const idle = await startSession(runtime, person.userId, workspace.id);
    runtime.clock.advance(SESSION_IDLE_MS);
    expect(await resolveSession(runtime, idle)).toBeNull();

    const busy = await startSession(runtime, person.userId, workspace.id);
    for (let spent = 0; spent < SESSION_ABSOLUTE_MS - SESSION_IDLE_MS / 2; spent += SESSION_IDLE_MS / 2) {
      runtime.clock.advance(SESSION_IDLE_MS / 2);
      expect(await resolveSession(runtime, busy)).not.toBeNull();
    }
    runtime.clock.advance(SESSION_IDLE_MS / 2);
    expect(await resolveSession(runtime, busy)).toBeNull();
  });

  it('a new sign-in replaces the old session, and a reset link ends every session', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const person = await makePerson(runtime, workspace.id, 'editor');
    const first = await startSession(runtime, person.userId, workspace.id);
    const second = await startSession(runtime, person.userId, workspace.id, first);
    expect(await resolveSession(runtime, first)).toBeNull();
    expect(await resolveSession(runtime, second)).not.toBeNull();
    const reset = await issuePasswordReset(runtime, person.email);
    const used = await usePasswordLink(runtime, {
      token: tokenOf(reset.path),
      kind: 'reset',
      password: 'a new password here',
    });
    expect(used).toMatchObject({ userId: person.userId });
    expect(await resolveSession(runtime, second)).toBeNull();
  });
});
