import { describe, expect, it } from 'vitest';
import { invitePerson } from '../../src/core/people/invitations.ts';
import { issuePasswordReset, issueSetupLink } from '../../src/core/people/users.ts';
import { Browser } from '../helpers/form-browser.ts';
import { useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';

const tokenOf = (path: string) => new URL(path, 'http://x').searchParams.get('token')!;

describe('dashboard: a new password must be hard to guess, on every link that sets one', () => {
  const bed = useRestTestbed();

  it('an invite refuses repeats, sequences, common passwords and the email itself, and the link still works after', async () => {
    const invited = await invitePerson(bed.runtime, {
      workspaceId: bed.ws.workspace.id,
      email: 'ed@example.com',
      role: 'editor',
      invitedBy: null,
    });
    const browser = new Browser(bed);
    expect((await browser.open(invited.path)).status).toBe(200);
    const token = tokenOf(invited.path);
    const refusals: Record<string, string> = {
      '1111111111': 'a repeated character',
      abcdefghijkl: 'a sequence',
      qwertyuiop: 'common password',
      password123: 'common password',
      'ed@example.com': 'not your email address',
      'ed@example.com2026': 'not your email address',
    };
    for (const [password, why] of Object.entries(refusals)) {
      const answer = await browser.post('/app/invite', { token, password });
      expect(answer.status, password).toBe(400);
      expect(answer.text, password).toContain(why);
    }
    // Length is still checked first.
    expect((await browser.post('/app/invite', { token, password: 'short' })).text).toContain('at least 10 characters');
    const accepted = await browser.post('/app/invite', { token, password: 'maple kettle orbit' });
    expect(accepted.status).toBe(303);
  });

  it('the setup link and a reset link apply the same rule', async () => {
    const setup = await issueSetupLink(bed.runtime, bed.ws.workspace.id);
    const browser = new Browser(bed);
    await browser.open(setup);
    const refused = await browser.post('/app/setup', {
      token: tokenOf(setup),
      email: 'founder@example.com',
      password: 'founder@example.com',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('not your email address');

    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const reset = await issuePasswordReset(bed.runtime, person.email);
    const again = new Browser(bed);
    await again.open(reset.path);
    const weak = await again.post('/app/reset', { token: tokenOf(reset.path), password: '1234567890' });
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('too easy to guess');
  });
});
