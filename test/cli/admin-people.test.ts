import { describe, expect, it } from 'vitest';
import { acceptInvitation, openInvitation } from '../../src/core/people/invitations.ts';
import { checkSignIn } from '../../src/core/people/sessions.ts';
import { usePasswordLink } from '../../src/core/people/users.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { runAdminCaptured } from '../helpers/admin-cli.ts';
import { testRuntime } from '../helpers/runtime.ts';

/** The admin commands for people, run in process: what they print and what the links they print do. */
describe('admin CLI: create-user and reset-password', () => {
  const run = runAdminCaptured;

  it('create-user prints an invite link that sets the password once; reset-password prints a new one', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const created = await run(
      runtime,
      'create-user',
      '--workspace',
      workspace.id,
      '--email',
      'Vi@Example.com',
      '--role',
      'viewer',
    );
    expect(created.code).toBe(0);
    const link = created.out.match(/(http:\/\/127\.0\.0\.1:3000\/app\/invite\?token=\S+)/)?.[1];
    expect(link, created.out).toBeDefined();
    const token = new URL(link!).searchParams.get('token')!;
    expect(await openInvitation(runtime, token)).toMatchObject({ email: 'vi@example.com', role: 'viewer' });
    const accept = () => acceptInvitation(runtime, { token, password: 'first password!', address: 'x' });
    expect(await accept()).toHaveProperty('userId');
    expect(await accept()).toMatchObject({ code: 'invalid_link' });

    const reset = await run(runtime, 'reset-password', '--email', 'vi@example.com');
    const resetToken = new URL(reset.out.match(/(http\S+\/app\/reset\?token=\S+)/)![1]).searchParams.get('token')!;
    await usePasswordLink(runtime, { token: resetToken, kind: 'reset', password: 'second password!' });
    expect(
      await checkSignIn(runtime, { email: 'vi@example.com', password: 'second password!', address: 'x' }),
    ).toHaveProperty('userId');
  });

  it('refuses an unknown role, a bad email, an unknown workspace and an unknown person, with exit 1', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    expect(
      (await run(runtime, 'create-user', '--workspace', workspace.id, '--email', 'a@b.co', '--role', 'owner')).out,
    ).toMatch(/role/);
    expect(
      (await run(runtime, 'create-user', '--workspace', workspace.id, '--email', 'nope', '--role', 'viewer')).code,
    ).toBe(1);
    expect(
      (await run(runtime, 'create-user', '--workspace', 'missing', '--email', 'a@b.co', '--role', 'viewer')).code,
    ).toBe(1);
    expect((await run(runtime, 'reset-password', '--email', 'ghost@example.com')).code).toBe(1);
  });
});
