import { describe, expect, it } from 'vitest';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { useRestTestbed } from '../helpers/http.ts';
import { Browser } from '../helpers/form-browser.ts';
import { makePerson } from '../helpers/people.ts';

/** The dashboard's lists filter through the one content list: by content type, and by caption text. */
describe('dashboard content list filters', () => {
  const bed = useRestTestbed();
  const signedIn = async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    return browser;
  };

  it('offers a content type select beside the other filters, and lists only that type', async () => {
    const { workspace } = bed.ws;
    await makeContent(bed.runtime, workspace, { caption: 'Words only here', content_type: 'text_only' });
    await makeContent(bed.runtime, workspace, { caption: 'A picture post', content_type: 'single_image' });
    await makeContent(bed.runtime, workspace, {
      caption: 'Words waiting',
      content_type: 'text_only',
      status: 'pending_review',
    });
    const browser = await signedIn();

    const all = (await browser.open('/app/content')).text;
    expect(all).toMatch(
      /<label for="content_type">Content type<\/label><select id="content_type" name="content_type">/,
    );
    expect(all).toContain('<option value="single_image">Single image</option>');
    expect(all).toContain('A picture post');

    const textOnly = await browser.open('/app/content?content_type=text_only');
    expect(textOnly.status).toBe(200);
    expect(textOnly.text).toContain('Words only here');
    expect(textOnly.text).toContain('Words waiting');
    expect(textOnly.text).not.toContain('A picture post');
    expect(textOnly.text).toContain('<option value="text_only" selected>Text only</option>');

    const inbox = (await browser.open('/app/inbox?content_type=single_image')).text;
    expect(inbox).toContain('Nothing waiting for review matches these filters.');
    expect((await browser.open('/app/inbox?content_type=text_only')).text).toContain('Words waiting');
  });

  it('searches captions ignoring case, together with the content type', async () => {
    const { workspace } = bed.ws;
    await makeContent(bed.runtime, workspace, { caption: 'SUMMER words', content_type: 'text_only' });
    await makeContent(bed.runtime, workspace, { caption: 'summer picture', content_type: 'single_image' });
    await makeContent(bed.runtime, (await makeWorkspace(bed.runtime)).workspace, { caption: 'summer elsewhere' });
    const browser = await signedIn();
    const found = (await browser.open('/app/content?search=Summer')).text;
    expect(found).toContain('SUMMER words');
    expect(found).toContain('summer picture');
    expect(found).not.toContain('summer elsewhere');
    const both = (await browser.open('/app/content?search=summer&content_type=single_image')).text;
    expect(both).toContain('summer picture');
    expect(both).not.toContain('SUMMER words');
  });

  it('answers a content type it does not know with a 400 page, not a crash', async () => {
    const browser = await signedIn();
    expect((await browser.open('/app/content?content_type=hologram')).status).toBe(400);
  });
});
