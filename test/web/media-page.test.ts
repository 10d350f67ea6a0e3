import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mediaAssets } from '../../db/schema/index.ts';
import { makeContent, makeMedia, makeWorkspace } from '../helpers/factories.ts';
import { Browser } from '../helpers/form-browser.ts';
import { useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { BASE_URL, baseEnv } from '../helpers/rest-expect.ts';
import { png } from '../fixtures/media/files.ts';

/**
 * Issue 35: the dashboard's media page (M6: storage against the quota, deleting files) and its
 * image policy (L6: nothing is loaded from another site, so an author cannot learn who opened a post).
 */
describe('dashboard media', () => {
  const bed = useRestTestbed({ env: baseEnv, media: true });

  const signedIn = async (role: 'viewer' | 'editor' | 'approver' | 'admin') => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, role);
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    return browser;
  };
  const rows = async () => bed.runtime.db.select().from(mediaAssets).all();
  const keyOf = (url: string) => /\/media\/([0-9A-Za-z]{32})/.exec(url)![1]!;

  describe('M6: the media page', () => {
    it('lists the files with a thumbnail from the service, type, size, and the storage used against the quota', async () => {
      const asset = await makeMedia(bed.runtime, bed.ws.workspace, { bytes: png(5, 4), filename: 'launch.png' });
      const browser = await signedIn('viewer');
      const page = await browser.open('/app/media');
      expect(page.status).toBe(200);
      expect(page.text).toContain(`<img class="thumb" src="${asset.url}" alt="launch.png"`);
      expect(asset.url.startsWith(`${BASE_URL}/media/`)).toBe(true);
      expect(page.text).toContain('image/png');
      expect(page.text).toContain(`${asset.size_bytes} bytes`);
      expect(page.text).toContain('of 25 GiB used');
      // A viewer sees no Delete, and is refused when trying anyway.
      expect(page.text).not.toContain(`/app/media/${asset.id}/delete`);
      expect((await browser.get(`/app/media/${asset.id}/delete`)).status).toBe(403);
      expect((await browser.post(`/app/media/${asset.id}/delete`, {})).status).toBe(403);
      expect(await rows()).toHaveLength(1);
    });

    it('shows the media storage on the home page', async () => {
      await makeMedia(bed.runtime, bed.ws.workspace, { bytes: png(2, 2) });
      const home = await (await signedIn('viewer')).open('/app');
      expect(home.text).toMatch(
        /<a href="\/app\/media">Media storage \(now\)<\/a><\/td><td>\d+ bytes<\/td><td>25 GiB<\/td>/,
      );
    });

    it('lets an editor delete a file after a confirmation; the file and its URL are gone', async () => {
      const asset = await makeMedia(bed.runtime, bed.ws.workspace, { filename: 'old.png' });
      const browser = await signedIn('editor');
      const list = await browser.open('/app/media');
      expect(list.text).toContain(`href="/app/media/${asset.id}/delete"`);
      const confirm = await browser.open(`/app/media/${asset.id}/delete`);
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('Delete “old.png”');
      expect(confirm.text).toContain(`action="/app/media/${asset.id}/delete"`);
      const deleted = await browser.post(`/app/media/${asset.id}/delete`, {});
      expect(deleted.status).toBe(303);
      expect(Browser.pathOf(deleted.location)).toBe('/app/media?done=deleted');
      expect(await rows()).toEqual([]);
      expect(existsSync(join(bed.mediaDir, keyOf(asset.url)))).toBe(false);
      expect((await bed.server.request(new URL(asset.url).pathname)).status).toBe(404);
    });

    it('names the unfinished items that still use a file instead of offering to delete it', async () => {
      const asset = await makeMedia(bed.runtime, bed.ws.workspace, { filename: 'in-use.png' });
      const item = await makeContent(bed.runtime, bed.ws.workspace, {
        caption: 'Spring launch',
        media_urls: [asset.url],
      });
      const browser = await signedIn('editor');
      const confirm = await browser.open(`/app/media/${asset.id}/delete`);
      expect(confirm.text).toContain('cannot be deleted yet');
      expect(confirm.text).toContain(`<a href="/app/content/${item.id}">Spring launch</a>`);
      expect(confirm.text).not.toContain(`action="/app/media/${asset.id}/delete"`);
      const refused = await browser.post(`/app/media/${asset.id}/delete`, {});
      expect(refused.status).toBe(409);
      expect(refused.text).toContain(item.id);
      expect(await rows()).toHaveLength(1);
    });

    it("answers 404 for another workspace's file and keeps it", async () => {
      const other = await makeWorkspace(bed.runtime, { name: 'Other' });
      const theirs = await makeMedia(bed.runtime, other.workspace);
      const browser = await signedIn('admin');
      expect((await browser.open('/app/media')).text).not.toContain(theirs.id);
      await browser.open('/app/media');
      expect((await browser.get(`/app/media/${theirs.id}/delete`)).status).toBe(404);
      expect((await browser.post(`/app/media/${theirs.id}/delete`, {})).status).toBe(404);
      expect(await rows()).toHaveLength(1);
    });
  });

  describe('L6: images load from the service only', () => {
    it("sends an img-src of the service's own origin, without any other site", async () => {
      const browser = await signedIn('approver');
      const page = await browser.get('/app/inbox');
      const csp = page.headers.get('content-security-policy') ?? '';
      const imgSrc = /img-src ([^;]*)/.exec(csp)?.[1]?.trim().split(/\s+/);
      expect(imgSrc?.sort()).toEqual(["'self'", BASE_URL].sort());
    });

    it("shows media kept elsewhere as links on the item page and in the inbox, and the service's own as thumbnails", async () => {
      const own = await makeMedia(bed.runtime, bed.ws.workspace);
      const tracker = 'https://tracker.example/pixel.png?who=approver';
      const item = await makeContent(bed.runtime, bed.ws.workspace, {
        caption: 'With a tracking pixel',
        target_platforms: ['twitter'],
        media_urls: [own.url, tracker],
        status: 'pending_review',
      });
      const browser = await signedIn('approver');
      for (const path of [`/app/content/${item.id}`, '/app/inbox']) {
        const page = await browser.open(path);
        expect(page.status, path).toBe(200);
        expect(page.text, path).not.toMatch(/<img[^>]+tracker\.example/);
        expect(page.text, path).toContain(`<img src="${own.url}"`);
        expect(page.text, path).toMatch(
          /<a class="external" href="https:\/\/tracker\.example\/pixel\.png\?who=approver"/,
        );
        expect(page.text, path).toContain('Media 2 of 2 (on tracker.example)');
      }
    });
  });
});
