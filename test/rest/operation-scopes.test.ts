import { describe, expect, it } from 'vitest';
import { makeCampaign, makeContent } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';

describe("REST: an OAuth token runs only the operations its scopes cover (core's check)", () => {
  const bed = useRestTestbed();

  it('refuses a write with a read token, 403 insufficient_scope naming the scope, and changes nothing', async () => {
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read']);
    const headers = { authorization: `Bearer ${accessToken}` };
    const item = await makeContent(bed.runtime, bed.ws.workspace, { caption: 'Before' });
    expect((await call(bed.server, 'GET', `/api/v1/content/${item.id}`, { headers })).status).toBe(200);
    const refused = await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
      headers,
      body: { caption: 'After' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect(refused.body.error.message).toMatch(/lacks the write scope .* \(it holds read\)/);
    const read = await call(bed.server, 'GET', `/api/v1/content/${item.id}`, { headers: bed.ws.headers });
    expect(read.body.caption).toBe('Before');
  });

  it('refuses a launch to a token that writes but does not publish: the declared scope, not the write bucket', async () => {
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read', 'write']);
    const headers = { authorization: `Bearer ${accessToken}` };
    const campaign = await makeCampaign(bed.runtime, bed.ws.workspace);
    const refused = await call(bed.server, 'POST', `/api/v1/campaigns/${campaign.id}/launch`, { headers, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect(refused.body.error.message).toMatch(/lacks the publish scope/);
    const read = await call(bed.server, 'GET', `/api/v1/campaigns/${campaign.id}`, { headers });
    expect(read.body.status).toBe('draft');
  });
});
