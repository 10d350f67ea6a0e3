import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { makeWebhook } from '../helpers/factories.ts';
import { call, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';

/**
 * Webhooks (their URLs, the delivery log with the receivers' answers) are an admin's to read, as
 * on the dashboard; the social accounts list is for those who create and publish (editors and
 * above). Credentials without a person (API keys, grants made with a key) keep full access.
 */
describe('REST: reading webhooks and social accounts needs the role the dashboard asks', () => {
  const bed = useRestTestbed({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });

  const RECEIVER_TOKEN = 'receiver-token-4f7c';

  /** A webhook whose URL carries a token, with one logged (failed) delivery, and a connected account. */
  async function seed() {
    const hook = await makeWebhook(bed.runtime, bed.ws.workspace, {
      url: `http://127.0.0.1:9/hook?token=${RECEIVER_TOKEN}`,
    });
    const tested = await call(bed.server, 'POST', `/api/v1/webhooks/${hook.id}/test`, { headers: bed.ws.headers });
    expect(tested.status).toBe(200);
    await connectSocialAccount(bed.runtime, {
      workspaceId: bed.ws.workspace.id,
      platform: 'linkedin',
      username: 'brand',
    });
    return hook;
  }

  async function headersFor(bed: RestTestbed, role: Role) {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, role);
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read'], 'Reader', person.userId);
    return { authorization: `Bearer ${accessToken}` };
  }

  const reads = (hookId: string) => [
    `/api/v1/webhooks`,
    `/api/v1/webhooks/${hookId}`,
    `/api/v1/webhooks/${hookId}/deliveries`,
  ];

  it('a viewer is refused 403 forbidden on every webhook read and on the accounts list, and sees no URL', async () => {
    const hook = await seed();
    const headers = await headersFor(bed, 'viewer');
    for (const path of [...reads(hook.id), '/api/v1/social-accounts']) {
      const res = await call(bed.server, 'GET', path, { headers });
      expect(res.status, path).toBe(403);
      expect(res.body.error.code, path).toBe('forbidden');
      expect(JSON.stringify(res.body), path).not.toContain(RECEIVER_TOKEN);
      expect(JSON.stringify(res.body), path).not.toContain('brand');
    }
    expect((await call(bed.server, 'GET', '/api/v1/webhooks', { headers })).body.error.message).toMatch(
      /an admin or above; you are a viewer/,
    );
  });

  it('an editor and an approver list the social accounts (to choose targets) but read no webhook', async () => {
    const hook = await seed();
    for (const role of ['editor', 'approver'] as const) {
      const headers = await headersFor(bed, role);
      const accounts = await call(bed.server, 'GET', '/api/v1/social-accounts', { headers });
      expect(accounts.status, role).toBe(200);
      expect(accounts.body.data.map((a: { username: string }) => a.username)).toEqual(['brand']);
      for (const path of reads(hook.id)) {
        const res = await call(bed.server, 'GET', path, { headers });
        expect(res.status, `${role} ${path}`).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
      }
    }
  });

  it("an admin, an API key and a key's read-only grant read them all", async () => {
    const hook = await seed();
    const admin = await headersFor(bed, 'admin');
    const keyGrant = (await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read'], 'Key grant')).accessToken;
    for (const headers of [admin, bed.ws.headers, { authorization: `Bearer ${keyGrant}` }]) {
      for (const path of [...reads(hook.id), '/api/v1/social-accounts']) {
        expect((await call(bed.server, 'GET', path, { headers })).status, path).toBe(200);
      }
      const log = await call(bed.server, 'GET', `/api/v1/webhooks/${hook.id}/deliveries`, { headers });
      expect(log.body.data).toHaveLength(1);
    }
  });
});
