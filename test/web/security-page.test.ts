import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../helpers/factories.ts';
import { Browser } from '../helpers/form-browser.ts';
import { call, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { sql } from 'drizzle-orm';

const contentStatus = async (bed: RestTestbed, accessToken: string) =>
  (await call(bed.server, 'GET', '/api/v1/content', { headers: { authorization: `Bearer ${accessToken}` } })).status;

/** The family id (the grant's id on the page) of an access token's grant. */
const grantIdOf = async (bed: RestTestbed, clientId: string) =>
  (
    (await bed.runtime.db.get(sql`select family_id as id from oauth_tokens where client_id = ${clientId} limit 1`)) as {
      id: string;
    }
  ).id;

describe('dashboard: a person sees and revokes the assistants they approved', () => {
  const bed = useRestTestbed();

  it("lists one's own grants only, revokes one at once, and answers 404 for another person's", async () => {
    const me = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
    const colleague = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const mine = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read', 'write'], 'My Claude', me.userId);
    const theirs = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read'], 'Their ChatGPT', colleague.userId);
    const withKey = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read'], 'Approved with a key');
    for (const token of [mine, theirs, withKey]) expect(await contentStatus(bed, token.accessToken)).toBe(200);

    const browser = new Browser(bed);
    await browser.signIn(me.email, me.password);
    const page = await browser.open('/app/security');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/app/security" aria-current="page"');
    expect(page.text).toContain('My Claude');
    expect(page.text).toContain('read, write');
    expect(page.text).toContain(bed.ws.workspace.name);
    expect(page.text).toContain('10 Mar 2026'); // approved, in the workspace's time zone
    expect(page.text).not.toContain('Their ChatGPT');
    expect(page.text).not.toContain('Approved with a key');

    // Another person's grant, by its id: 404, and it keeps working.
    const refused = await browser.post(`/app/security/grants/${await grantIdOf(bed, theirs.clientId)}/revoke`, {});
    expect(refused.status).toBe(404);
    expect(await contentStatus(bed, theirs.accessToken)).toBe(200);
    expect((await browser.post('/app/security/grants/not-a-grant/revoke', {})).status).toBe(404);
    // Without the CSRF token nothing happens.
    const forged = await browser.post(
      `/app/security/grants/${await grantIdOf(bed, mine.clientId)}/revoke`,
      {},
      { csrf: null },
    );
    expect(forged.status).toBe(403);
    expect(await contentStatus(bed, mine.accessToken)).toBe(200);

    const done = await browser.post(`/app/security/grants/${await grantIdOf(bed, mine.clientId)}/revoke`, {});
    expect(done.status).toBe(303);
    expect(done.location).toBe('/app/security?done=revoked');
    expect(await contentStatus(bed, mine.accessToken)).toBe(401);
    expect(await contentStatus(bed, theirs.accessToken)).toBe(200);
    expect(await contentStatus(bed, withKey.accessToken)).toBe(200);
    const after = await browser.open('/app/security?done=revoked');
    expect(after.text).toContain('Access revoked');
    expect(after.text).not.toContain('My Claude');
    expect(after.text).toContain('No assistant holds access for you.');
    // Revoked already: 404 again.
    expect((await browser.post(`/app/security/grants/${await grantIdOf(bed, mine.clientId)}/revoke`, {})).status).toBe(
      404,
    );
  });

  it("shows a viewer's grants too, in another workspace as well", async () => {
    const viewer = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const elsewhere = await makeWorkspace(bed.runtime, { name: 'Second shop' });
    const grant = await issueTestToken(bed.runtime, elsewhere.workspace.id, ['read'], 'Cursor', viewer.userId);
    const browser = new Browser(bed);
    await browser.signIn(viewer.email, viewer.password);
    const page = await browser.open('/app/security');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Cursor');
    expect(page.text).toContain('Second shop');
    expect((await browser.post(`/app/security/grants/${await grantIdOf(bed, grant.clientId)}/revoke`, {})).status).toBe(
      303,
    );
  });
});
