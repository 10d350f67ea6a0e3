/**
 * The languages a post is written in: the workspace's default_language on /me and an item's own
 * platform_specific.bluesky.langs, each a BCP 47 tag kept in its canonical spelling.
 */
import { describe, expect, it } from 'vitest';
import { call, useRestTestbed } from '../helpers/http.ts';

describe('REST: post languages', () => {
  const bed = useRestTestbed();
  const patchMe = (body: unknown) => call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body });
  const create = (body: unknown) => call(bed.server, 'POST', '/api/v1/content', { headers: bed.ws.headers, body });

  it("the workspace's default_language: none at first, set in canonical form, refused when no tag, cleared with null", async () => {
    expect((await call(bed.server, 'GET', '/api/v1/me', { headers: bed.ws.headers })).body.default_language).toBeNull();
    const set = await patchMe({ default_language: 'pt-br' });
    expect(set.status).toBe(200);
    expect(set.body.default_language).toBe('pt-BR');
    expect((await call(bed.server, 'GET', '/api/v1/me', { headers: bed.ws.headers })).body.default_language).toBe(
      'pt-BR',
    );
    for (const wrong of ['en_US', 'english please', '', 42]) {
      const refused = await patchMe({ default_language: wrong });
      expect(refused.status, JSON.stringify(wrong)).toBe(400);
      expect(refused.body.error.code).toBe('invalid_body');
      expect(refused.body.error.details.fieldErrors.default_language, JSON.stringify(wrong)).toBeDefined();
    }
    expect((await patchMe({ timezone: 'UTC' })).body.default_language).toBe('pt-BR');
    const cleared = await patchMe({ default_language: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.default_language).toBeNull();
  });

  it("an item's platform_specific.bluesky.langs: at most 3 tags, canonical, and only under bluesky", async () => {
    const made = await create({ caption: 'Hallo', platform_specific: { bluesky: { langs: ['DE', 'de-at'] } } });
    expect(made.status).toBe(201);
    expect(made.body.platform_specific.bluesky.langs).toEqual(['de', 'de-AT']);

    const notATag = await create({ caption: 'Hallo', platform_specific: { bluesky: { langs: ['deutsch!'] } } });
    expect(notATag.status).toBe(400);
    expect(notATag.body.error.message).toMatch(/platform_specific\.bluesky\.langs\.0: "deutsch!" is no language tag/);
    const tooMany = await create({
      caption: 'Hi',
      platform_specific: { bluesky: { langs: ['en', 'de', 'fr', 'it'] } },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/at most 3 languages/);
    const elsewhere = await create({ caption: 'Hi', platform_specific: { twitter: { langs: ['en'] } } });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.message).toMatch(/langs is a Bluesky setting/);
  });
});
