import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { brandProfiles } from '../../db/schema/index.ts';
import { brandProfileOf } from '../../src/core/brand-profile/operations.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, expectError } from '../helpers/rest-expect.ts';

const PATHS = ['/api/v1/brand-profile', '/api/v1/brand_profile'] as const;
const PATH = PATHS[0];

/** A workspace that never set its profile reads strings null, lists [], tones 5. */
const defaultsFor = (ws: TestWorkspace) => ({
  object: 'brand_profile',
  workspace_id: ws.workspace.id,
  voice: null,
  audience: null,
  topics_to_lean_into: [],
  topics_to_avoid: [],
  style_notes: null,
  example_posts: [],
  brand_name: null,
  industry: null,
  target_audience: null,
  company_description: null,
  website_url: null,
  tone_formality: 5,
  tone_humor: 5,
  tone_energy: 5,
  vocabulary: [],
  forbidden_words: [],
  primary_color: null,
  secondary_color: null,
  accent_color: null,
  hashtag_strategy: null,
  updated_at: ws.workspace.createdAt.toISOString(),
});

const chars = (n: number) => 'x'.repeat(n);
const items = (count: number, length = 3) => Array.from({ length: count }, (_, i) => `${i}`.padStart(length, 'w'));
/** An http(s) URL exactly `length` characters long. */
const urlOf = (length: number) => {
  const base = 'https://example.com/';
  return base + 'p'.repeat(length - base.length);
};

/**
 * Every limit of the two field sets (plus our own item length and URL length bounds), each as a
 * value at the limit and one just past it.
 */
const LIMITS: Array<{ name: string; field: string; atLimit: unknown; over: unknown }> = [
  { name: 'voice 500 characters', field: 'voice', atLimit: chars(500), over: chars(501) },
  { name: 'audience 500 characters', field: 'audience', atLimit: chars(500), over: chars(501) },
  { name: 'topics_to_lean_into 50 items', field: 'topics_to_lean_into', atLimit: items(50), over: items(51) },
  {
    name: 'topics_to_lean_into items of 100 characters',
    field: 'topics_to_lean_into',
    atLimit: [chars(100)],
    over: ['ok', chars(101)],
  },
  { name: 'topics_to_avoid 50 items', field: 'topics_to_avoid', atLimit: items(50), over: items(51) },
  {
    name: 'topics_to_avoid items of 100 characters',
    field: 'topics_to_avoid',
    atLimit: [chars(100)],
    over: [chars(101)],
  },
  { name: 'style_notes 2000 characters', field: 'style_notes', atLimit: chars(2000), over: chars(2001) },
  { name: 'example_posts 20 items', field: 'example_posts', atLimit: items(20), over: items(21) },
  { name: 'example_posts items of 500 characters', field: 'example_posts', atLimit: [chars(500)], over: [chars(501)] },
  { name: 'brand_name at most 160 characters', field: 'brand_name', atLimit: chars(160), over: chars(161) },
  { name: 'brand_name at least 1 character', field: 'brand_name', atLimit: 'A', over: '' },
  { name: 'industry 80 characters', field: 'industry', atLimit: chars(80), over: chars(81) },
  { name: 'target_audience 500 characters', field: 'target_audience', atLimit: chars(500), over: chars(501) },
  {
    name: 'company_description 2000 characters',
    field: 'company_description',
    atLimit: chars(2000),
    over: chars(2001),
  },
  { name: 'website_url 2048 characters', field: 'website_url', atLimit: urlOf(2048), over: urlOf(2049) },
  { name: 'tone_formality at most 10', field: 'tone_formality', atLimit: 10, over: 11 },
  { name: 'tone_formality at least 0', field: 'tone_formality', atLimit: 0, over: -1 },
  { name: 'tone_humor at most 10', field: 'tone_humor', atLimit: 10, over: 11 },
  { name: 'tone_humor at least 0', field: 'tone_humor', atLimit: 0, over: -1 },
  { name: 'tone_energy at most 10', field: 'tone_energy', atLimit: 10, over: 11 },
  { name: 'tone_energy at least 0', field: 'tone_energy', atLimit: 0, over: -1 },
  { name: 'vocabulary 100 items', field: 'vocabulary', atLimit: items(100), over: items(101) },
  { name: 'vocabulary items of 100 characters', field: 'vocabulary', atLimit: [chars(100)], over: [chars(101)] },
  { name: 'forbidden_words 100 items', field: 'forbidden_words', atLimit: items(100), over: items(101) },
  {
    name: 'forbidden_words items of 100 characters',
    field: 'forbidden_words',
    atLimit: [chars(100)],
    over: [chars(101)],
  },
  { name: 'hashtag_strategy 500 characters', field: 'hashtag_strategy', atLimit: chars(500), over: chars(501) },
];

/** Values of the wrong type or format: 400 invalid_body, never 422. */
const TYPE_ERRORS: Array<{ name: string; field: string; value: unknown }> = [
  { name: 'a number for a text field', field: 'voice', value: 42 },
  { name: 'a string for a list', field: 'topics_to_avoid', value: 'crypto' },
  { name: 'a number inside a list', field: 'vocabulary', value: ['fine', 7] },
  { name: 'null for a list', field: 'example_posts', value: null },
  { name: 'null for brand_name, which cannot be cleared', field: 'brand_name', value: null },
  { name: 'a string for a tone', field: 'tone_energy', value: '5' },
  { name: 'a fraction for a tone', field: 'tone_humor', value: 5.5 },
  { name: 'a URL that is not http(s)', field: 'website_url', value: 'ftp://example.com/brand' },
  { name: 'a website that is not a URL', field: 'website_url', value: 'our website' },
  { name: 'a colour name instead of hex', field: 'primary_color', value: 'teal' },
  { name: 'a hex colour of the wrong length', field: 'accent_color', value: '#12345' },
  { name: 'an object for a text field', field: 'hashtag_strategy', value: { use: 'few' } },
];

/** The brand profile: one resource for both field sets, at both paths. */
describe('REST brand profile', () => {
  const bed = useRestTestbed({ env: baseEnv });

  const send = (method: string, path: string, body?: unknown, headers = bed.ws.headers) =>
    call(bed.server, method, path, { headers, body });
  const read = async (workspace = bed.ws) => {
    const res = await send('GET', PATH, undefined, workspace.headers);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const patch = async (body: unknown, workspace = bed.ws, path: string = PATH) => {
    const res = await send('PATCH', path, body, workspace.headers);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const storedRow = async (workspaceId = bed.ws.workspace.id) =>
    bed.runtime.db.select().from(brandProfiles).where(eq(brandProfiles.workspaceId, workspaceId)).get();

  describe('read', () => {
    it('answers the defaults on both paths for a workspace that never set a profile, updated_at its created_at', async () => {
      bed.runtime.clock.advance(3_600_000);
      for (const path of PATHS) {
        const res = await send('GET', path);
        expect(res.status, path).toBe(200);
        expect(res.body, path).toEqual(defaultsFor(bed.ws));
        expect(Object.keys(res.body), path).toEqual(Object.keys(defaultsFor(bed.ws)));
      }
      expect(await storedRow()).toBeUndefined();
    });

    it('gives brandProfileOf the same resource as GET, before and after a PATCH', async () => {
      expect(await brandProfileOf(bed.runtime.db, bed.ws.workspace.id)).toEqual(await read());
      await patch({ voice: 'Warm', forbidden_words: ['cheap'] });
      expect(await brandProfileOf(bed.runtime.db, bed.ws.workspace.id)).toEqual(await read());
    });

    it('takes GET from the read bucket and PATCH from the write bucket', async () => {
      const got = await send('GET', PATH);
      expect(got.headers.get('x-ratelimit-limit')).toBe(String(bed.runtime.config.rateLimits.read));
      const patched = await send('PATCH', PATH, { voice: 'Calm' });
      expect(patched.headers.get('x-ratelimit-limit')).toBe(String(bed.runtime.config.rateLimits.write));
      expect(bed.runtime.config.rateLimits.read).not.toBe(bed.runtime.config.rateLimits.write);
    });

    it('requires an API key', async () => {
      for (const method of ['GET', 'PATCH']) {
        expectError(
          await send(method, PATH, method === 'PATCH' ? { voice: 'x' } : undefined, {
            'content-type': 'application/json',
          }),
          401,
          'missing_key',
        );
      }
      expect(await storedRow()).toBeUndefined();
    });

    it('answers 405 for other methods on both paths', async () => {
      for (const path of PATHS) {
        const res = await send('POST', path, { voice: 'x' });
        expectError(res, 405, 'method_not_allowed');
        expect(res.headers.get('allow')).toBe('GET, PATCH, HEAD');
      }
    });
  });

  describe('update', () => {
    it('changes only the fields sent, from both field sets, and GET then shows them', async () => {
      const now = bed.runtime.clock.now().toISOString();
      const first = await patch({
        voice: 'Plain and friendly',
        brand_name: 'Acme',
        tone_humor: 8,
        topics_to_lean_into: ['gardening'],
      });
      expect(first).toEqual({
        ...defaultsFor(bed.ws),
        voice: 'Plain and friendly',
        brand_name: 'Acme',
        tone_humor: 8,
        topics_to_lean_into: ['gardening'],
        updated_at: now,
      });
      expect(await read()).toEqual(first);

      const second = await patch({ industry: 'Garden tools', example_posts: ['Spring is here.'] });
      expect(second).toEqual({ ...first, industry: 'Garden tools', example_posts: ['Spring is here.'] });
      expect(await read()).toEqual(second);
    });

    it('accepts every field of both sets in one PATCH', async () => {
      const everything = {
        voice: 'Warm',
        audience: 'Home gardeners',
        topics_to_lean_into: ['composting', 'seeds'],
        topics_to_avoid: ['politics'],
        style_notes: 'Short sentences.',
        example_posts: ['Plant now, thank yourself in June.'],
        brand_name: 'Acme Gardens',
        industry: 'Retail',
        target_audience: 'Gardeners aged 30 to 60',
        company_description: 'We sell garden tools.',
        website_url: 'https://acme.example/garden',
        tone_formality: 2,
        tone_humor: 7,
        tone_energy: 9,
        vocabulary: ['grow', 'bloom'],
        forbidden_words: ['cheap'],
        primary_color: '#1a73e8',
        secondary_color: '#FFF',
        accent_color: '#00aa00',
        hashtag_strategy: 'Two or three, always #gardening.',
      };
      const res = await patch(everything);
      expect(res).toEqual({ ...defaultsFor(bed.ws), ...everything, updated_at: bed.runtime.clock.now().toISOString() });
      expect(await read()).toEqual(res);
    });

    it('serves one profile at both paths, with GET and PATCH on each', async () => {
      await patch({ voice: 'From the hyphen path' }, bed.ws, PATHS[0]);
      const viaUnderscore = await send('GET', PATHS[1]);
      expect(viaUnderscore.body.voice).toBe('From the hyphen path');
      await patch({ audience: 'From the underscore path' }, bed.ws, PATHS[1]);
      const viaHyphen = await send('GET', PATHS[0]);
      expect(viaHyphen.body).toMatchObject({ voice: 'From the hyphen path', audience: 'From the underscore path' });
      expect(viaHyphen.body).toEqual((await send('GET', PATHS[1])).body);
    });

    it('replaces a list rather than merging it, and [] empties it', async () => {
      await patch({ topics_to_avoid: ['politics', 'religion'] });
      expect((await patch({ topics_to_avoid: ['sports'] })).topics_to_avoid).toEqual(['sports']);
      expect((await patch({ topics_to_avoid: [] })).topics_to_avoid).toEqual([]);
    });

    it('clears a nullable field with null', async () => {
      const set = {
        voice: 'Bold',
        style_notes: 'No emoji.',
        industry: 'Retail',
        website_url: 'https://acme.example',
        primary_color: '#abc',
        hashtag_strategy: 'Few.',
      };
      await patch({ ...set, brand_name: 'Acme' });
      const cleared = Object.fromEntries(Object.keys(set).map((field) => [field, null]));
      const res = await patch(cleared);
      expect(res).toMatchObject({ ...cleared, brand_name: 'Acme' });
      expect(await read()).toEqual(res);
    });

    it('stores colours as sent in #rgb and #rrggbb form', async () => {
      const res = await patch({ primary_color: '#abc', secondary_color: '#A1B2C3', accent_color: '#000000' });
      expect(res).toMatchObject({ primary_color: '#abc', secondary_color: '#A1B2C3', accent_color: '#000000' });
    });

    it('moves updated_at with the clock on each PATCH, not on a GET', async () => {
      const created = bed.ws.workspace.createdAt.getTime();
      bed.runtime.clock.advance(60_000);
      expect((await read()).updated_at).toBe(new Date(created).toISOString());
      const first = await patch({ voice: 'One' });
      expect(first.updated_at).toBe(new Date(created + 60_000).toISOString());
      bed.runtime.clock.advance(5_000);
      expect((await read()).updated_at).toBe(first.updated_at);
      const second = await patch({ voice: 'Two' });
      expect(second.updated_at).toBe(new Date(created + 65_000).toISOString());
      expect((await storedRow())!.updatedAt.getTime()).toBe(created + 65_000);
    });

    it('answers no_updates for an empty body, no body, or only unknown fields, and stores nothing', async () => {
      for (const body of [
        {},
        undefined,
        { colour: 'blue', workspace_id: 'other', updated_at: '2020-01-01T00:00:00Z' },
      ]) {
        const res = await send('PATCH', PATH, body);
        expectError(res, 400, 'no_updates');
      }
      expect(await storedRow()).toBeUndefined();
      expect(await read()).toEqual(defaultsFor(bed.ws));
    });

    it('ignores unknown fields next to known ones', async () => {
      const res = await patch({ voice: 'Kept', colour: 'blue', workspace_id: 'someone-else' });
      expect(res.voice).toBe('Kept');
      expect(res.workspace_id).toBe(bed.ws.workspace.id);
      expect(res).not.toHaveProperty('colour');
    });
  });

  describe('limits: at the limit 200, one past it 422 unprocessable_entity', () => {
    for (const { name, field, atLimit, over } of LIMITS) {
      it(name, async () => {
        const ok = await patch({ [field]: atLimit });
        expect(ok[field]).toEqual(atLimit);

        const res = await send('PATCH', PATH, { [field]: over });
        expectError(res, 422, 'unprocessable_entity', { details: true });
        expect(Object.keys(res.body.error.details.fieldErrors)).toEqual([field]);
        expect(res.body.error.details.fieldErrors[field]).toEqual([expect.any(String)]);
        expect(res.body.error.details.formErrors).toEqual([]);
        // Nothing of a refused PATCH is kept.
        expect((await read())[field]).toEqual(atLimit);
      });
    }

    it('reports every field over its limit, and keeps none of the body', async () => {
      const res = await send('PATCH', PATH, { voice: chars(501), tone_energy: 11, brand_name: 'Fine' });
      expectError(res, 422, 'unprocessable_entity', { details: true });
      expect(Object.keys(res.body.error.details.fieldErrors).sort()).toEqual(['tone_energy', 'voice']);
      expect(await storedRow()).toBeUndefined();
    });
  });

  describe('types: 400 invalid_body', () => {
    for (const { name, field, value } of TYPE_ERRORS) {
      it(name, async () => {
        const res = await send('PATCH', PATH, { [field]: value });
        expectError(res, 400, 'invalid_body', { details: true });
        expect(Object.keys(res.body.error.details.fieldErrors)).toEqual([field]);
        expect(await storedRow()).toBeUndefined();
      });
    }

    it('answers 400 for a body with both a type error and a limit breach, naming both fields', async () => {
      const res = await send('PATCH', PATH, { voice: chars(501), tone_humor: 'playful' });
      expectError(res, 400, 'invalid_body', { details: true });
      expect(Object.keys(res.body.error.details.fieldErrors).sort()).toEqual(['tone_humor', 'voice']);
      expect(await storedRow()).toBeUndefined();
    });

    it('answers 400 for a JSON array instead of an object of fields', async () => {
      const res = await send('PATCH', PATH, [{ voice: 'Warm' }]);
      expectError(res, 400, 'invalid_body', { details: true });
      expect(res.body.error.details.formErrors).toEqual([expect.any(String)]);
      expect(await storedRow()).toBeUndefined();
    });
  });

  describe('workspaces', () => {
    it('keeps each workspace to its own profile', async () => {
      const other = await makeWorkspace(bed.runtime);
      const mine = await patch({ brand_name: 'Mine', forbidden_words: ['rival'] });

      expect(await read(other)).toEqual(defaultsFor(other));
      const theirs = await patch({ brand_name: 'Theirs', tone_energy: 1 }, other);
      expect(theirs.workspace_id).toBe(other.workspace.id);

      expect(await read()).toEqual(mine);
      expect(await read(other)).toEqual(theirs);
      // A workspace_id in the body cannot aim a PATCH at another workspace.
      await patch({ voice: 'Aimed elsewhere', workspace_id: other.workspace.id });
      expect((await read(other)).voice).toBeNull();
      expect((await read()).voice).toBe('Aimed elsewhere');
    });
  });
});
