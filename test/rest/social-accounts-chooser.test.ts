/**
 * One login that manages several accounts (Facebook Pages): the callback answers a chooser page, and
 * its form posts back the chosen accounts with the same single-use state and the browser's
 * confirmation token. Over HTTP, with the fake
 * Facebook as the platform.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { oauthConnectStates, socialAccounts } from '../../db/schema/index.ts';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeFacebook, type FakeFacebook } from '../../fakes/facebook.ts';
import { confirmationPageOf, confirmationRequest, type ConfirmationPage } from '../helpers/connect-confirmation.ts';
import { call, readReply, useRestTestbed } from '../helpers/http.ts';
import { BASE_URL, baseEnv, eventsOf } from '../helpers/rest-expect.ts';

describe('choosing the accounts one login manages', () => {
  let facebook: FakeFacebook;
  const env: Record<string, string> = { ...baseEnv };
  const bed = useRestTestbed({ env });
  const agency = () => facebook.users[1]!;

  beforeAll(async () => {
    facebook = await startFakeFacebook();
    Object.assign(env, fakePlatformEnvironment({ facebook }));
  });
  afterAll(async () => {
    await facebook.close();
  });
  afterEach(() => {
    facebook.script.loginAs(facebook.users[0]!.id);
  });

  const rows = async () => bed.runtime.db.select().from(socialAccounts).all();

  /** Connect, the fake's consent, the callback: answers the chooser page as its browser holds it. */
  async function chooser(body: Record<string, unknown> = {}) {
    facebook.script.loginAs(agency().id);
    const started = await call(bed.server, 'POST', '/api/v1/social-accounts/connect', {
      headers: bed.ws.headers,
      body: { platform: 'facebook', ...body },
    });
    expect(started.status).toBe(201);
    const consent = await fetch(started.body.authorize_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    expect(back.origin).toBe(BASE_URL);
    const reply = await readReply(await bed.server.request(back.pathname + back.search, { redirect: 'manual' }));
    const page = confirmationPageOf(reply);
    return {
      reply,
      page,
      reload: (cookie = page.cookie) =>
        bed.server.request(back.pathname + back.search, { redirect: 'manual', headers: { cookie } }).then(readReply),
    };
  }

  /** The chooser's form, posted from its browser with `accounts` ticked (and any field overridden). */
  const choose = (page: ConfirmationPage, accounts: string[], fields: Record<string, string> = {}) =>
    bed.server.request(...confirmationRequest(page, { accounts, fields })).then(readReply);

  it('answers a chooser listing every Page for the workspace, framed by nobody, and stores nothing yet', async () => {
    const { reply, page } = await chooser();
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
    expect(reply.headers.get('x-frame-options')).toBe('DENY');
    expect(reply.body).toContain(`to connect to workspace <strong>${bed.ws.workspace.name}</strong>`);
    expect(page.checkboxes).toEqual(agency().pages.map((listed) => listed.id));
    for (const listed of agency().pages) expect(reply.body).toContain(listed.name);
    expect(page.fields.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await rows()).toEqual([]);
  });

  it('connects exactly the Pages chosen, one live account each, with their Page tokens, and spends the state', async () => {
    const { page } = await chooser();
    const [first, , third] = agency().pages;
    const answer = await choose(page, [first!.id, third!.id]);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(`Connected ${first!.name}, ${third!.name} to`);
    expect((await rows()).map((row) => [row.platformUserId, row.mode, row.status]).sort()).toEqual([
      [first!.id, 'live', 'active'],
      [third!.id, 'live', 'active'],
    ]);
    expect((await eventsOf(bed.runtime)).filter((event) => event.type === 'social_account.connected')).toHaveLength(2);
    expect((await choose(page, [first!.id, third!.id])).status).toBe(400);
    expect(await rows()).toHaveLength(2);
  });

  it('shows the chooser again on a reload in the same browser, and that page is good for the post that follows', async () => {
    const { page, reload } = await chooser();
    const again = await reload();
    const reloaded = confirmationPageOf(again);
    expect(reloaded.fields.state).toBe(page.fields.state);
    const answer = await choose(reloaded, [agency().pages[1]!.id]);
    expect(answer.status).toBe(200);
    expect(await rows()).toHaveLength(1);
  });

  it('refuses a Page the login did not offer, or none, and lets the choice be made again', async () => {
    const { page } = await chooser();
    const offered = agency().pages[0]!.id;
    for (const accounts of [[], [facebook.users[0]!.pages[0]!.id], [offered, '999999999999999']]) {
      const refused = await choose(page, accounts);
      expect(refused.status).toBe(400);
      expect(await rows()).toEqual([]);
    }
    expect((await choose(page, [offered])).status).toBe(200);
    expect(await rows()).toHaveLength(1);
  });

  it('a forged state is refused, and the return URL gets one social_account_id per Page', async () => {
    const { page } = await chooser({ return_url: `${BASE_URL}/done` });
    expect((await choose(page, ['1'], { state: 'forged' })).status).toBe(400);
    const pages = agency().pages.slice(0, 2);
    const answer = await choose(
      page,
      pages.map((one) => one.id),
    );
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location')!);
    expect(location.searchParams.get('platform')).toBe('facebook');
    expect(location.searchParams.getAll('social_account_id').sort()).toEqual(
      (await rows()).map((row) => row.id).sort(),
    );
    expect(await bed.runtime.db.select().from(oauthConnectStates).all()).toEqual([]);
  });

  it('a login with one Page asks to connect that Page, without a chooser', async () => {
    const started = await call(bed.server, 'POST', '/api/v1/social-accounts/connect', {
      headers: bed.ws.headers,
      body: { platform: 'facebook' },
    });
    const consent = await fetch(started.body.authorize_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    const asked = await readReply(await bed.server.request(back.pathname + back.search, { redirect: 'manual' }));
    const only = facebook.users[0]!.pages[0]!;
    expect(asked.body).toContain(`Connect ${only.name} to workspace`);
    const page = confirmationPageOf(asked);
    expect(page.checkboxes).toEqual([]);
    expect(page.fields.account).toBe(only.id);
    const answer = await readReply(await bed.server.request(...confirmationRequest(page)));
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(`Connected ${only.name} to`);
    expect((await rows()).map((row) => row.platformUserId)).toEqual([only.id]);
  });
});
