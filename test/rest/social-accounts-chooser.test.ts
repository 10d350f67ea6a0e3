/**
 * One login that manages several accounts (Facebook Pages): the callback answers a chooser page, and
 * its form posts back the chosen accounts with the same single-use state. Over HTTP, with the fake
 * Facebook as the platform.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { oauthConnectStates, socialAccounts } from '../../db/schema/index.ts';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeFacebook, type FakeFacebook } from '../../fakes/facebook.ts';
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

  const rows = () => bed.runtime.db.select().from(socialAccounts).all();

  /** Connect, the fake's consent, the callback: answers the chooser page and its state. */
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
    const page = await readReply(await bed.server.request(back.pathname + back.search, { redirect: 'manual' }));
    const state = /name="state" value="([^"]+)"/.exec(page.body as string)?.[1];
    return {
      page,
      state: state!,
      reload: () => bed.server.request(back.pathname + back.search, { redirect: 'manual' }),
    };
  }

  const choose = (form: URLSearchParams) =>
    bed.server
      .request('/callbacks/facebook/oauth', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        redirect: 'manual',
      })
      .then(readReply);

  it('answers a chooser listing every Page, framed by nobody, and stores nothing yet', async () => {
    const { page, state } = await chooser();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    for (const listed of agency().pages) {
      expect(page.body).toContain(`value="${listed.id}"`);
      expect(page.body).toContain(listed.name);
    }
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rows()).toEqual([]);
  });

  it('connects exactly the Pages chosen, one live account each, with their Page tokens, and spends the state', async () => {
    const { state } = await chooser();
    const [first, , third] = agency().pages;
    const form = new URLSearchParams([
      ['state', state],
      ['account', first!.id],
      ['account', third!.id],
    ]);
    const answer = await choose(form);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(`Connected ${first!.name}, ${third!.name} to`);
    expect(
      rows()
        .map((row) => [row.platformUserId, row.mode, row.status])
        .sort(),
    ).toEqual([
      [first!.id, 'live', 'active'],
      [third!.id, 'live', 'active'],
    ]);
    expect(eventsOf(bed.runtime).filter((event) => event.type === 'social_account.connected')).toHaveLength(2);
    expect((await choose(form)).status).toBe(400);
    expect(rows()).toHaveLength(2);
  });

  it('shows the chooser again on a reload, still good for the post that follows', async () => {
    const { state, reload } = await chooser();
    const again = await readReply(await reload());
    expect(again.status).toBe(200);
    expect(again.body).toContain(`name="state" value="${state}"`);
    const answer = await choose(
      new URLSearchParams([
        ['state', state],
        ['account', agency().pages[1]!.id],
      ]),
    );
    expect(answer.status).toBe(200);
    expect(rows()).toHaveLength(1);
  });

  it('refuses a Page the login did not offer, or none, and lets the choice be made again', async () => {
    const { state } = await chooser();
    const offered = agency().pages[0]!.id;
    for (const form of [
      new URLSearchParams([['state', state]]),
      new URLSearchParams([
        ['state', state],
        ['account', facebook.users[0]!.pages[0]!.id],
      ]),
      new URLSearchParams([
        ['state', state],
        ['account', offered],
        ['account', '999999999999999'],
      ]),
    ]) {
      const refused = await choose(form);
      expect(refused.status).toBe(400);
      expect(rows()).toEqual([]);
    }
    expect(
      (
        await choose(
          new URLSearchParams([
            ['state', state],
            ['account', offered],
          ]),
        )
      ).status,
    ).toBe(200);
    expect(rows()).toHaveLength(1);
  });

  it('a forged state is refused, and the return URL gets one social_account_id per Page', async () => {
    expect(
      (
        await choose(
          new URLSearchParams([
            ['state', 'forged'],
            ['account', '1'],
          ]),
        )
      ).status,
    ).toBe(400);
    const { state } = await chooser({ return_url: 'https://app.example.com/done' });
    const pages = agency().pages.slice(0, 2);
    const answer = await choose(
      new URLSearchParams([['state', state], ...pages.map((page): [string, string] => ['account', page.id])]),
    );
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location')!);
    expect(location.searchParams.get('platform')).toBe('facebook');
    expect(location.searchParams.getAll('social_account_id').sort()).toEqual(
      rows()
        .map((row) => row.id)
        .sort(),
    );
    expect(bed.runtime.db.select().from(oauthConnectStates).all()).toEqual([]);
  });

  it('a login with one Page connects it directly, without a chooser', async () => {
    const started = await call(bed.server, 'POST', '/api/v1/social-accounts/connect', {
      headers: bed.ws.headers,
      body: { platform: 'facebook' },
    });
    const consent = await fetch(started.body.authorize_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    const answer = await readReply(await bed.server.request(back.pathname + back.search, { redirect: 'manual' }));
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(`Connected ${facebook.users[0]!.pages[0]!.name} to`);
    expect(rows().map((row) => row.platformUserId)).toEqual([facebook.users[0]!.pages[0]!.id]);
  });
});
