import { describe, expect, it } from 'vitest';
import { issueSetupLink } from '../../src/core/people/users.ts';
import { runAdminCaptured } from '../helpers/admin-cli.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { Browser } from '../helpers/form-browser.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson, tokenOf } from '../helpers/people.ts';
import { sql } from 'drizzle-orm';

/**
 * One account across the deployment (issue 35): invitations are accepted by the person invited, a
 * workspace's admin never sets the password of someone who has one, and sign-in asks which workspace.
 * Each attack of C1 ends with the attacker outside the victim's workspace and the victim untouched.
 */
describe('people: accounts, invitations and workspaces', () => {
  const bed = useRestTestbed();

  const VICTIM_PASSWORD = 'the victim chose this one';
  const ATTACKER_PASSWORD = 'the attacker chose this';

  /** A signed-in admin of `ws`, in a browser of their own. */
  const adminOf = async (ws: TestWorkspace) => {
    const person = await makePerson(bed.runtime, ws.workspace.id, 'admin');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    return Object.assign(browser, { person });
  };
  /** Invites on the members page, as an admin does: answers the link shown once. */
  const invite = async (admin: Browser, email: string, role = 'admin') => {
    await admin.open('/app/members');
    const sent = await admin.post('/app/members/invite', { email, role });
    expect(sent.status, sent.text).toBe(303);
    const page = await admin.open('/app/members');
    const link = /id="invite-url" type="text" readonly value="([^"]+)"/.exec(page.text)?.[1];
    expect(link, page.text).toBeDefined();
    return { page: page.text, link: link!.replace(/&amp;/g, '&') };
  };
  /** Opens an invite link in `browser` and sends its form with `password`. */
  const accept = async (browser: Browser, link: string, password: string) => {
    const form = await browser.open(Browser.pathOf(link));
    expect(form.status, form.text).toBe(200);
    return browser.post('/app/invite', { token: tokenOf(link), password });
  };
  const signInAnswer = async (email: string, password: string) => {
    const browser = new Browser(bed);
    await browser.open('/app/login');
    return { browser, answer: await browser.post('/app/login', { email, password, next: '/app/inbox' }) };
  };
  /** The header's "… in <workspace>" of whoever `browser` is signed in as, or null when signed out. */
  const workspaceShown = async (browser: Browser) => {
    const page = await browser.get('/app/inbox');
    if (page.status !== 200) return null;
    return /<p class="who">[^<]* in ([^<]+)<\/p>/.exec(page.text)?.[1] ?? null;
  };
  /** The victim can still sign in with their password, and their session still works. */
  const expectUntouched = async (victim: Browser, email: string, ws: TestWorkspace) => {
    expect(await workspaceShown(victim)).toBe(ws.workspace.name);
    const { answer } = await signInAnswer(email, VICTIM_PASSWORD);
    expect(answer.status, answer.text).toBe(303);
  };
  /** The attacker, however they try, is not signed in to `ws` as the victim. */
  const expectLockedOut = async (attacker: Browser, email: string, ws: TestWorkspace) => {
    expect(await workspaceShown(attacker)).not.toBe(ws.workspace.name);
    const { browser, answer } = await signInAnswer(email, ATTACKER_PASSWORD);
    expect(answer.status).toBe(401);
    expect(await workspaceShown(browser)).toBeNull();
  };

  it('C1, a pending invitee: another workspace’s link cannot set their password; their own link still works', async () => {
    const victimWs = bed.ws;
    const attackerWs = await makeWorkspace(bed.runtime, { name: 'Attacker workspace' });
    const victimAdmin = await adminOf(victimWs);
    const attackerAdmin = await adminOf(attackerWs);
    const theirs = await invite(victimAdmin, 'cfo@b.test');

    const mine = await invite(attackerAdmin, 'cfo@b.test');
    const attacker = new Browser(bed);
    const refused = await accept(attacker, mine.link, ATTACKER_PASSWORD);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('Another workspace invited you before this one');
    expect(await workspaceShown(attacker)).toBeNull();

    // The person invited first still accepts their own link, and is the admin of their workspace.
    const victim = new Browser(bed);
    expect((await accept(victim, theirs.link, VICTIM_PASSWORD)).status).toBe(303);
    expect((await victim.open('/app/inbox')).text).toContain(`cfo@b.test · admin in ${victimWs.workspace.name}`);

    // Later tries change nothing either: the attacker's link now wants the victim's password.
    expect((await accept(attacker, mine.link, ATTACKER_PASSWORD)).status).toBe(400);
    await expectLockedOut(attacker, 'cfo@b.test', victimWs);
    await expectUntouched(victim, 'cfo@b.test', victimWs);
  });

  it('C1, an activated person: a link kept from before they activated cannot set their password', async () => {
    const victimWs = bed.ws;
    const attackerWs = await makeWorkspace(bed.runtime, { name: 'Attacker workspace' });
    const victimAdmin = await adminOf(victimWs);
    const attackerAdmin = await adminOf(attackerWs);
    const theirs = await invite(victimAdmin, 'cfo@b.test');
    const kept = await invite(attackerAdmin, 'cfo@b.test');
    const victim = new Browser(bed);
    expect((await accept(victim, theirs.link, VICTIM_PASSWORD)).status).toBe(303);

    const attacker = new Browser(bed);
    const refused = await accept(attacker, kept.link, ATTACKER_PASSWORD);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('That is not the password of this account');
    await expectLockedOut(attacker, 'cfo@b.test', victimWs);
    await expectUntouched(victim, 'cfo@b.test', victimWs);
  });

  it('C1, a future hire: an account an attacker made elsewhere never joins the workspace that invites it later', async () => {
    const victimWs = bed.ws;
    const attackerWs = await makeWorkspace(bed.runtime, { name: 'Attacker workspace' });
    const attackerAdmin = await adminOf(attackerWs);
    const planted = await invite(attackerAdmin, 'newceo@b.test');
    const attacker = new Browser(bed);
    expect((await accept(attacker, planted.link, ATTACKER_PASSWORD)).status).toBe(303);
    const plantedId = /action="\/app\/members\/([^/"]+)\/role"[\s\S]*?Role of newceo@b\.test/.exec(
      (await attackerAdmin.open('/app/members')).text,
    )![1]!;
    expect((await attackerAdmin.post(`/app/members/${plantedId}/remove`, {})).status).toBe(303);

    // The victim's admin invites the email and gets a link, as for anyone.
    const victimAdmin = await adminOf(victimWs);
    const theirs = await invite(victimAdmin, 'newceo@b.test');
    expect(theirs.page).not.toMatch(/already has a password/);
    // Not a member before accepting: the attacker's password leads nowhere.
    expect((await victimAdmin.open('/app/members')).text).not.toMatch(/Role of newceo@b\.test/);
    const { browser: signedIn, answer } = await signInAnswer('newceo@b.test', ATTACKER_PASSWORD);
    expect(answer.status).toBe(401);
    expect(await workspaceShown(signedIn)).toBeNull();

    // The real person, who never chose the account's password, cannot accept with a new one...
    const victim = new Browser(bed);
    const refused = await accept(victim, theirs.link, VICTIM_PASSWORD);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('ask the operator of the service for a password reset');
    // ...the operator's reset gives the account back to them, and their own link lets them in.
    const reset = await runAdminCaptured(bed.runtime, 'reset-password', '--email', 'newceo@b.test');
    const resetLink = /(http\S+\/app\/reset\?token=\S+)/.exec(reset.out)![1]!;
    await victim.open(Browser.pathOf(resetLink));
    const set = await victim.post('/app/reset', { token: tokenOf(resetLink), password: VICTIM_PASSWORD });
    expect(set.status, set.text).toBe(200);
    expect(set.text).toContain('Your password is set. You are not a member of any workspace yet');
    expect(await workspaceShown(attacker)).toBeNull();
    const joined = await accept(victim, theirs.link, VICTIM_PASSWORD);
    expect(joined.status, joined.text).toBe(303);
    expect(await workspaceShown(victim)).toBe(victimWs.workspace.name);
    await expectLockedOut(attacker, 'newceo@b.test', victimWs);
  });

  it('C1 within one workspace: of two create-user links, the older one stops working when the newer is made', async () => {
    const ws = bed.ws;
    const createUser = async () => {
      const made = await runAdminCaptured(
        bed.runtime,
        'create-user',
        '--workspace',
        ws.workspace.id,
        '--email',
        'ana@example.com',
        '--role',
        'admin',
      );
      expect(made.code, made.out).toBe(0);
      return /(http\S+\/app\/invite\?token=\S+)/.exec(made.out)![1]!;
    };
    const older = await createUser();
    const newer = await createUser();
    const victim = new Browser(bed);
    expect((await accept(victim, newer, VICTIM_PASSWORD)).status).toBe(303);

    const attacker = new Browser(bed);
    expect((await attacker.open(Browser.pathOf(older))).status).toBe(404);
    await attacker.open('/app/login');
    const refused = await attacker.post('/app/invite', { token: tokenOf(older), password: ATTACKER_PASSWORD });
    expect(refused.status).toBe(404);
    await expectLockedOut(attacker, 'ana@example.com', ws);
    await expectUntouched(victim, 'ana@example.com', ws);
  });

  it('L2: an invite answers alike whether or not the email has an account elsewhere; members only after accepting', async () => {
    const elsewhere = await makeWorkspace(bed.runtime, { name: 'Elsewhere' });
    await makePerson(bed.runtime, elsewhere.workspace.id, 'editor', 'known@example.com');
    const admin = await adminOf(bed.ws);
    const known = await invite(admin, 'known@example.com', 'viewer');
    const unknown = await invite(admin, 'unknown@example.com', 'viewer');
    const section = (page: string, email: string, link: string) =>
      /<section class="secret"[\s\S]*?<\/section>/
        .exec(page)![0]
        .replaceAll(email, 'EMAIL')
        .replaceAll(link.replace(/&/g, '&amp;'), 'LINK');
    expect(section(known.page, 'known@example.com', known.link)).toBe(
      section(unknown.page, 'unknown@example.com', unknown.link),
    );
    // Both wait as invitations, neither is a member yet.
    const members = (await admin.open('/app/members')).text;
    for (const email of ['known@example.com', 'unknown@example.com']) {
      expect(members).not.toContain(`Role of ${email}`);
      expect(members).toContain(`Withdraw the invite of ${email}`);
    }
    // The person with an account joins with their own password, and keeps it.
    const person = new Browser(bed);
    expect((await accept(person, known.link, 'a long test password')).status).toBe(303);
    expect(await workspaceShown(person)).toBe(bed.ws.workspace.name);
    expect((await admin.open('/app/members')).text).toContain('Role of known@example.com');
  });

  it('a person of several workspaces is asked at sign-in, the choice is remembered, and the header switches', async () => {
    const other = await makeWorkspace(bed.runtime, { name: 'Second workspace' });
    const stranger = await makeWorkspace(bed.runtime, { name: 'Not theirs' });
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    // Signed in, they accept another workspace's invitation with one button, no password.
    const otherAdmin = await adminOf(other);
    const { link } = await invite(otherAdmin, person.email, 'viewer');
    const form = await browser.open(Browser.pathOf(link));
    expect(form.text).toContain('>Join Second workspace</button>');
    expect(form.text).not.toContain('type="password"');
    expect((await browser.post('/app/invite', { token: tokenOf(link) })).status).toBe(303);
    const page = await browser.open('/app/inbox');
    expect(page.text).toContain(`${person.email} · viewer in Second workspace`);
    expect(page.text).toContain('<label for="switch-workspace">Workspace</label>');

    // From the header: back to the first one; a workspace that is not theirs is not found.
    const switched = await browser.post('/app/workspace', { workspace_id: bed.ws.workspace.id });
    expect(switched).toMatchObject({ status: 303, location: '/app/inbox' });
    expect(await workspaceShown(browser)).toBe(bed.ws.workspace.name);
    await browser.open('/app/inbox');
    expect((await browser.post('/app/workspace', { workspace_id: stranger.workspace.id })).status).toBe(404);
    expect((await browser.post('/app/workspace', { workspace_id: other.workspace.id }, { csrf: null })).status).toBe(
      403,
    );
    expect(await workspaceShown(browser)).toBe(bed.ws.workspace.name);

    // The next sign-in lands where they chose last.
    expect((await signInAnswer(person.email, person.password)).answer.location).toBe('/app/inbox');
    const again = (await signInAnswer(person.email, person.password)).browser;
    expect(await workspaceShown(again)).toBe(bed.ws.workspace.name);

    // With no choice made yet (as for people of several workspaces before this), sign-in asks.
    await bed.runtime.db.run(sql`update users set last_workspace_id = null where id = ${person.userId}`);
    const { browser: asked, answer } = await signInAnswer(person.email, person.password);
    expect(answer.location).toBe('/app/workspaces?next=%2Fapp%2Finbox');
    const chooser = await asked.open(answer.location!);
    expect(chooser.text).toContain('>Open Second workspace</button>');
    expect(chooser.text).not.toContain('Not theirs');
    const chosen = await asked.post('/app/workspace', { workspace_id: other.workspace.id, next: '/app/inbox' });
    expect(chosen.location).toBe('/app/inbox');
    expect(await workspaceShown(asked)).toBe('Second workspace');
  });

  it('M1: the setup link creates only a new person, and refuses an email that has an account or an invitation', async () => {
    const victim = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    const victimBrowser = new Browser(bed);
    await victimBrowser.signIn(victim.email, victim.password);
    const admin = await adminOf(bed.ws);
    await invite(admin, 'pending@example.com');
    const link = await issueSetupLink(bed.runtime, (await makeWorkspace(bed.runtime)).workspace.id);
    const attacker = new Browser(bed);
    await attacker.open(link);
    for (const email of [victim.email, 'PENDING@example.com ']) {
      const refused = await attacker.post('/app/setup', { token: tokenOf(link), email, password: ATTACKER_PASSWORD });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('the setup link only creates a new person');
    }
    expect(await workspaceShown(attacker)).toBeNull();
    expect((await signInAnswer(victim.email, ATTACKER_PASSWORD)).answer.status).toBe(401);
    expect((await signInAnswer(victim.email, victim.password)).answer.status).toBe(303);
    expect(await workspaceShown(victimBrowser)).toBe(bed.ws.workspace.name);
    // The link is still good for a new person.
    const created = await attacker.post('/app/setup', {
      token: tokenOf(link),
      email: 'founder@example.com',
      password: 'the founder password',
    });
    expect(created.status).toBe(303);
  });

  it('M4: a password reset revokes every OAuth grant the person approved, and no other', async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
    const theirs = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read'], 'Their assistant', person.userId);
    const keyMade = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read'], 'Made with the API key');
    const read = (token: string) =>
      call(bed.server, 'GET', '/api/v1/content', { headers: { authorization: `Bearer ${token}` } });
    expect((await read(theirs.accessToken)).status).toBe(200);

    const reset = await runAdminCaptured(bed.runtime, 'reset-password', '--email', person.email);
    const link = /(http\S+\/app\/reset\?token=\S+)/.exec(reset.out)![1]!;
    const browser = new Browser(bed);
    await browser.open(Browser.pathOf(link));
    const set = await browser.post('/app/reset', { token: tokenOf(link), password: 'the recovered password' });
    expect(set.status, set.text).toBe(303);

    expect((await read(theirs.accessToken)).status).toBe(401);
    expect((await read(keyMade.accessToken)).status).toBe(200);
  });

  it('refuses emails with control, format or zero-width characters, and folds look-alike spellings into one', async () => {
    const admin = await adminOf(bed.ws);
    await admin.open('/app/members');
    for (const email of [
      'ana\u200b@example.com',
      'ana\u0000@example.com',
      'an\u202ea@example.com',
      'ana\u2060@example.com',
    ]) {
      const refused = await admin.post('/app/members/invite', { email, role: 'viewer' });
      expect(refused.status, JSON.stringify(email)).toBe(400);
      // NUL no field of any operation takes, and it is refused before the email is looked at.
      expect(refused.text).toContain(
        email.includes('\u0000') ? 'must not contain the NUL character' : 'invisible or control character',
      );
    }
    expect((await admin.open('/app/members')).text).toContain('No invites are waiting.');
    // Fullwidth letters are the plain ones: one person, one address.
    const { link } = await invite(admin, 'ＡＮＡ@example.com', 'viewer');
    expect((await admin.open('/app/members')).text).toContain('Withdraw the invite of ana@example.com');
    const ana = new Browser(bed);
    expect((await accept(ana, link, 'ana has a password')).status).toBe(303);
    expect((await signInAnswer('ａｎａ@example.com', 'ana has a password')).answer.status).toBe(303);
  });
});
