import { describe, expect, it } from 'vitest';
import { mediaAssets } from '../../db/schema/index.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { SIGN_IN_FREE_FAILURES } from '../../src/core/people/sign-in-limits.ts';
import { issueSetupLink } from '../../src/core/people/users.ts';
import { inOrder, makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { Browser } from '../helpers/form-browser.ts';
import { makePerson } from '../helpers/people.ts';
import { sql } from 'drizzle-orm';

const itemOf = (bed: RestTestbed, id: string) =>
  call(bed.server, 'GET', `/api/v1/content/${id}`, { headers: bed.ws.headers });

describe('dashboard pages', () => {
  const bed = useRestTestbed();

  it('the setup link creates the admin once; /app then asks to sign in, and comes back after', async () => {
    const link = await issueSetupLink(bed.runtime, bed.ws.workspace.id);
    const browser = new Browser(bed);
    const form = await browser.open(link);
    expect(form.status).toBe(200);
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    const done = await browser.post('/app/setup', {
      token,
      email: 'admin@example.com',
      password: 'the admin password',
    });
    expect(done.status).toBe(303);
    expect((await browser.open('/app/inbox')).text).toContain('admin@example.com');
    const again = new Browser(bed);
    expect((await again.open(link)).status).toBe(404);
    const anonymous = await again.get('/app/calendar?month=2026-12');
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe('/app/login?next=%2Fapp%2Fcalendar%3Fmonth%3D2026-12');
    await again.open('/app/login');
    const back = await again.post('/app/login', {
      email: 'admin@example.com',
      password: 'the admin password',
      next: '/app/calendar?month=2026-12',
    });
    expect(back.location).toBe('/app/calendar?month=2026-12');
  });

  it('sends helmet headers and a CSP whose script-src is self, without unsafe-inline or unsafe-eval', async () => {
    const res = await new Browser(bed).get('/app/login');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.text).toContain('<label for="email">Email</label>');
    const htmx = await new Browser(bed).get('/app/assets/htmx.min.js');
    expect(htmx.status).toBe(200);
    expect(htmx.text).toContain('2.0.11');
  });

  it('a viewer sees no action buttons and a direct approve POST answers 403; an editor cannot approve; an approver can', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      status: 'pending_review',
      caption: 'Please approve me',
    });
    for (const role of ['viewer', 'editor'] as const) {
      const person = await makePerson(bed.runtime, bed.ws.workspace.id, role);
      const browser = new Browser(bed);
      await browser.signIn(person.email, person.password);
      const inbox = await browser.open('/app/inbox');
      expect(inbox.text).toContain('Please approve me');
      expect(inbox.text).not.toMatch(/>Approve[^<]*<\/button>/);
      const refused = await browser.post(`/app/content/${item.id}/approve`, {});
      expect(refused.status).toBe(403);
      expect((await itemOf(bed, item.id)).body.status).toBe('pending_review');
    }
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const browser = new Browser(bed);
    await browser.signIn(approver.email, approver.password);
    expect((await browser.open('/app/inbox')).text).toContain('>Approve only</button>');
    const done = await browser.post(`/app/content/${item.id}/approve`, { back: '/app/inbox' });
    expect(done.status).toBe(303);
    expect((await itemOf(bed, item.id)).body.status).toBe('approved');
  });

  it('approve sends exactly one content.approved event; reject keeps the reason; bulk approves both', async () => {
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const browser = new Browser(bed);
    await browser.signIn(approver.email, approver.password);
    const [a, b, c, d] = await inOrder([1, 2, 3, 4], async (n) =>
      makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review', caption: `Item ${n}` }),
    );
    await browser.post(`/app/content/${a!.id}/approve`, {});
    const events = (await bed.runtime.db.all(sql`select data from events where type = 'content.approved'`)).map(
      (r) => JSON.parse((r as { data: string }).data).content.id,
    );
    expect(events.filter((id: string) => id === a!.id)).toHaveLength(1);
    await browser.post(`/app/content/${b!.id}/reject`, { reason: 'Off brand' });
    expect((await itemOf(bed, b!.id)).body).toMatchObject({ status: 'rejected', review_note: 'Off brand' });
    await browser.post('/app/bulk', { ids: [c!.id, d!.id], action: 'approve' });
    expect((await itemOf(bed, c!.id)).body.status).toBe('approved');
    expect((await itemOf(bed, d!.id)).body.status).toBe('approved');
    const page = await browser.open(`/app/content/${b!.id}`);
    expect(page.text).toContain('Off brand');
    expect(page.text).toMatch(/rejected/);
  });

  it("an item's page shows each image's alt text: the item's own, else its asset's, as the asset changes", async () => {
    const key = 'A'.repeat(32);
    await bed.runtime.db
      .insert(mediaAssets)
      .values({
        id: '7f6c1f3e-5d0a-4c55-9a53-2f1b6f0f0a01',
        workspaceId: bed.ws.workspace.id,
        storageKey: key,
        filename: 'coat.png',
        assetType: 'image',
        mimeType: 'image/png',
        sizeBytes: 10,
        width: 1,
        height: 1,
        tags: [],
        altText: 'A red coat on a hanger',
        createdAt: new Date(),
      })
      .run();
    const asset = `${bed.runtime.config.publicBaseUrl}/media/${key}.png`;
    const other = 'https://cdn.example.com/scarf.jpg';
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      content_type: 'slideshow',
      media_urls: [asset, other],
      media_alt_text: { [other]: 'A striped scarf' },
      target_platforms: ['bluesky'],
    });
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    // The service's own file is an image with its alt text; the one kept elsewhere is a link (the
    // dashboard loads no image from another site) with its alt text beside it.
    const alts = async () => {
      const page = (await browser.open(`/app/content/${item.id}`)).text;
      expect(page).toContain('(on cdn.example.com)');
      expect(page).toContain('Alt: A striped scarf');
      return [...page.matchAll(/<img\s+src="[^"]+"\s+alt="([^"]+)"/g)].map((m) => m[1]);
    };
    expect(await alts()).toEqual(['A red coat on a hanger']);
    const changed = await call(bed.server, 'PATCH', '/api/v1/media_assets/7f6c1f3e-5d0a-4c55-9a53-2f1b6f0f0a01', {
      headers: bed.ws.headers,
      body: { alt_text: null },
    });
    expect(changed.status).toBe(200);
    expect(await alts()).toEqual(['Media 1 of 2, no alt text']);
  });

  it('goes back only to dashboard pages, however the way back is written', async () => {
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const browser = new Browser(bed);
    await browser.signIn(approver.email, approver.password);
    const ways = [
      '/app/..//evil.example/x',
      '/app/..\\evil.example',
      '/app/%2e%2e//evil.example',
      '//evil.example/app',
    ];
    for (const back of ways) {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
      const answer = await browser.post(`/app/content/${item.id}/approve`, { back });
      expect(answer.status, back).toBe(303);
      expect(answer.location, back).toBe('/app/inbox?done=approved');
    }
    const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    const kept = await browser.post(`/app/content/${item.id}/approve`, { back: '/app/content?status=approved' });
    expect(kept.location).toBe('/app/content?status=approved&done=approved');
    const login = await new Browser(bed).get('/app/login?next=%2Fapp%2F..%2F%2Fevil.example');
    expect(login.text).not.toContain('evil.example');
  });

  it('refuses a POST without the CSRF token or with a foreign Origin with 403, changing nothing', async () => {
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const browser = new Browser(bed);
    await browser.signIn(approver.email, approver.password);
    const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    expect((await browser.post(`/app/content/${item.id}/approve`, {}, { csrf: null })).status).toBe(403);
    expect((await browser.post(`/app/content/${item.id}/approve`, {}, { origin: 'https://evil.example' })).status).toBe(
      403,
    );
    expect((await browser.post(`/app/content/${item.id}/approve`, {}, { origin: null })).status).toBe(403);
    expect((await itemOf(bed, item.id)).body.status).toBe('pending_review');
  });

  it('a new browser is slowed (429) past the free failures, and after sign-out the old cookie lands on sign-in', async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    const cookie = new Map(browser.cookies);
    await browser.post('/app/logout', {});
    const replay = new Browser(bed);
    replay.cookies = cookie;
    replay.cookies.delete('np_device');
    const after = await replay.get('/app/inbox');
    expect(after.status).toBe(303);
    expect(after.location).toMatch(/^\/app\/login/);

    const guesser = new Browser(bed);
    await guesser.open('/app/login');
    for (let i = 0; i < SIGN_IN_FREE_FAILURES; i++) {
      const wrong = await guesser.post('/app/login', { email: person.email, password: `wrong ${i}` });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('That email and password do not match an account.');
    }
    expect((await guesser.post('/app/login', { email: person.email, password: person.password })).status).toBe(429);
  });

  it("another workspace's item answers 404", async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    const other = await makeWorkspace(bed.runtime);
    const foreign = await makeContent(bed.runtime, other.workspace, { status: 'pending_review' });
    expect((await browser.get(`/app/content/${foreign.id}`)).status).toBe(404);
    expect((await browser.post(`/app/content/${foreign.id}/approve`, {})).status).toBe(404);
  });

  it('the inbox shows every item in order, each caption whole above cards cut at the fold; the item page shows all', async () => {
    const captions = ['first', 'second', 'third'].map((n) => `The ${n} post. ${'Long enough to fold. '.repeat(12)}`);
    const items = await inOrder(captions, async (caption) => {
      bed.runtime.clock.advance(1000);
      return makeContent(bed.runtime, bed.ws.workspace, {
        status: 'pending_review',
        caption,
        hashtags: ['spring', 'sale'],
        content_type: 'text_only',
        target_platforms: ['instagram', 'linkedin'],
      });
    });
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    const inbox = await browser.open('/app/inbox?limit=50');
    expect(inbox.status).toBe(200);
    expect(Number(inbox.headers.get('content-length'))).toBe(Buffer.byteLength(inbox.text));
    expect(inbox.text).toMatch(/<\/html>\s*$/);
    // Newest first, each row once, and nothing of the rows' placeholder left in the page.
    const order = [...inbox.text.matchAll(/<li class="item" id="item-([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(items.map((item) => item.id).reverse());
    expect(inbox.text).not.toContain('<!--parts-->');
    for (const caption of captions) expect(inbox.text).toContain(`<p class="caption">${caption}</p>`);
    // Both platforms read the same hashtags: said once per item, not once per card.
    expect(inbox.text.match(/<p class="tags">Hashtags: #spring #sale<\/p>/g)).toHaveLength(3);
    expect(inbox.text.match(/<span class="fold">…more<\/span>/g)).toHaveLength(6);
    expect(inbox.text).not.toContain('Text after “…more”');
    const page = (await browser.open(`/app/content/${items[0]!.id}`)).text;
    expect(page.match(/<summary>Text after “…more”<\/summary>/g)).toHaveLength(2);
    expect(page.match(/<p class="tags">Hashtags: #spring #sale<\/p>/g)).toHaveLength(2);
  });

  it('the failed-since list says what it shows and marks no status tab as its own', async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    const tabsOf = (text: string) => /<nav aria-label="Status" class="tabs">([\s\S]*?)<\/nav>/.exec(text)?.[1] ?? '';
    const all = await browser.open('/app/content');
    expect(tabsOf(all.text)).toContain('<a href="/app/content" aria-current="page">All</a>');
    const failed = await browser.open(`/app/content?failed_since=${encodeURIComponent('2026-03-09T12:00:00Z')}`);
    expect(failed.status).toBe(200);
    expect(failed.text).toContain('Failed since');
    expect(tabsOf(failed.text)).not.toContain('aria-current');
  });

  it('a 297-weighted X caption shows the problem on its X card only', async () => {
    for (const platform of ['twitter', 'linkedin'])
      await connectSocialAccount(bed.runtime, {
        workspaceId: bed.ws.workspace.id,
        platform,
        username: `acct_${platform}`,
      });
    const caption = `${'a'.repeat(290)} 日本語`; // 291 + 3×2 = 297 weighted
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      status: 'pending_review',
      caption,
      content_type: 'text_only',
      target_platforms: ['twitter', 'linkedin'],
    });
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    const page = (await browser.open(`/app/content/${item.id}`)).text;
    const card = (name: string) =>
      new RegExp(`<article\\s+class="card[^"]*"\\s+aria-label="${name} preview"\\s*>([\\s\\S]*?)</article>`).exec(
        page,
      )?.[1] ?? '';
    expect(card('X')).toContain('X: 297 of 280 characters');
    expect(card('LinkedIn')).toContain('Ready for LinkedIn');
    expect(card('LinkedIn')).not.toContain('problems');
  });

  it('calendar in America/New_York: 14:30Z is 15 December 09:30; moving to the 17th gives 2026-12-17T14:30:00Z', async () => {
    await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { timezone: 'America/New_York' } });
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      status: 'scheduled',
      scheduled_for: '2026-12-15T14:30:00Z',
      caption: 'Winter post',
      // A new time queues it again, which publishing's own precondition (a target platform) governs.
      target_platforms: ['linkedin'],
    });
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    const page = (await browser.open('/app/calendar?month=2026-12')).text;
    expect(page).toContain('America/New_York');
    expect(page).toMatch(
      /data-day="2026-12-15"><span class="day">15<\/span>\s*<ul><li class="status-scheduled" draggable="true" data-id="[^"]+"><span class="visually-hidden">Scheduled: <\/span><a [^>]+><time datetime="2026-12-15T14:30:00.000Z">09:30<\/time>/,
    );
    const moved = await browser.post(`/app/content/${item.id}/move`, { day: '2026-12-17' });
    expect(moved.status).toBe(303);
    expect((await itemOf(bed, item.id)).body.scheduled_for).toBe('2026-12-17T14:30:00.000Z');
    const itemPage = (await browser.open(`/app/content/${item.id}`)).text;
    expect(itemPage).toContain('value="2026-12-17T09:30"');
    await browser.post(`/app/content/${item.id}/schedule`, { scheduled_for: '2026-12-18T10:15' });
    expect((await itemOf(bed, item.id)).body.scheduled_for).toBe('2026-12-18T15:15:00.000Z');
    const bad = await browser.post(`/app/content/${item.id}/schedule`, { scheduled_for: 'soon' });
    expect(bad.status).toBe(400);
  });

  it('settings: an admin sets the time zone and approver-must-differ; an unknown zone is refused; others get 403', async () => {
    const admin = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    const browser = new Browser(bed);
    await browser.signIn(admin.email, admin.password);
    await browser.open('/app/settings');
    expect((await browser.post('/app/settings', { timezone: 'Europe/Paris', approver_must_differ: 'on' })).status).toBe(
      303,
    );
    const me = await call(bed.server, 'GET', '/api/v1/me', { headers: bed.ws.headers });
    expect(me.body).toMatchObject({ timezone: 'Europe/Paris', approver_must_differ: true });
    expect((await browser.post('/app/settings', { timezone: 'Nowhere/Land' })).status).toBe(400);
    // The default language: set in its canonical spelling, shown on the page, refused when no tag, emptied to none.
    expect((await browser.post('/app/settings', { timezone: 'UTC', default_language: 'de-at' })).status).toBe(303);
    expect((await call(bed.server, 'GET', '/api/v1/me', { headers: bed.ws.headers })).body.default_language).toBe(
      'de-AT',
    );
    expect((await browser.get('/app/settings')).text).toContain('name="default_language" value="de-AT"');
    expect((await browser.post('/app/settings', { timezone: 'UTC', default_language: 'Deutsch!' })).status).toBe(400);
    expect((await browser.post('/app/settings', { timezone: 'UTC', default_language: '' })).status).toBe(303);
    expect((await call(bed.server, 'GET', '/api/v1/me', { headers: bed.ws.headers })).body.default_language).toBeNull();
    const editor = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
    const other = new Browser(bed);
    await other.signIn(editor.email, editor.password);
    expect((await other.get('/app/settings')).status).toBe(403);
    expect((await other.post('/app/settings', { timezone: 'UTC' })).status).toBe(403);
  });

  it('an empty list says whether nothing waits or nothing matches the filters, with a way to clear them', async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    expect((await browser.open('/app/inbox')).text).toContain('<p class="empty">Nothing is waiting for review.</p>');
    await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review', target_platforms: ['linkedin'] });
    const filtered = (await browser.open('/app/inbox?platform=tiktok')).text;
    expect(filtered).toContain(
      'Nothing waiting for review matches these filters. <a href="/app/inbox">Clear the filters</a>',
    );
    const content = (await browser.open('/app/content?status=draft&search=nothing%20like%20this')).text;
    expect(content).toContain(
      'No content matches these filters. <a href="/app/content?status=draft">Clear the filters</a>',
    );
  });
});
