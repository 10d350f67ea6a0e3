import { describe, expect, it } from 'vitest';
import { makeCampaign, makeContent, makeWebhook, makeWorkspace } from '../helpers/factories.ts';
import { Browser } from '../helpers/form-browser.ts';
import { useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';

/**
 * Every page that shows one thing of the workspace answers a thing of another workspace (or none)
 * with the same 404 page: its own sentence, and a link back to where such things are listed.
 */
describe('dashboard pages of one thing: another workspace’s answers 404', () => {
  const bed = useRestTestbed({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });

  it('the item, campaign, webhook, account, member and key pages each say what was not found', async () => {
    const admin = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    const browser = new Browser(bed);
    await browser.signIn(admin.email, admin.password);
    const other = await makeWorkspace(bed.runtime);
    const content = await makeContent(bed.runtime, other.workspace, { status: 'pending_review' });
    const campaign = await makeCampaign(bed.runtime, other.workspace);
    const hook = await makeWebhook(bed.runtime, other.workspace, { url: 'http://127.0.0.1:9/hook' });
    const stranger = await makePerson(bed.runtime, other.workspace.id, 'editor');
    const pages: Array<[path: string, message: string, back: string]> = [
      [`/app/content/${content.id}`, 'There is no such item in this workspace.', '/app/inbox'],
      [`/app/campaigns/${campaign.id}/launch`, 'There is no such campaign in this workspace.', '/app/campaigns'],
      [`/app/webhooks/${hook.id}`, 'There is no such webhook in this workspace.', '/app/webhooks'],
      ['/app/accounts/sa_none/disconnect', 'There is no such account in this workspace.', '/app/accounts'],
      [`/app/members/${stranger.userId}/remove`, 'There is no such member in this workspace.', '/app/members'],
      [
        `/app/keys/${other.keyId}/revoke`,
        'There is no such key in this workspace, or it is revoked already.',
        '/app/keys',
      ],
    ];
    for (const [path, message, back] of pages) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(404);
      expect(page.text, path).toContain('<title>Not found');
      expect(page.text, path).toContain(message);
      expect(page.text, path).toContain(`href="${back}"`);
    }
  });
});
