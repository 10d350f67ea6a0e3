import fc from 'fast-check';
import {
  ASSET_TYPES,
  CAMPAIGN_STATUSES,
  CONTENT_MIX_KEYS,
  CONTENT_STATUSES,
  CONTENT_TYPES,
} from '../../db/schema/index.ts';
import { PLATFORMS } from '../../src/core/platforms/registry.ts';
import { getAccount } from '../../src/core/accounts/get-account.ts';
import { getAnalyticsOverview } from '../../src/core/analytics/overview.ts';
import { getBrandProfile, updateBrandProfile } from '../../src/core/brand-profile/operations.ts';
import {
  createCampaign,
  deleteCampaign,
  getCampaign,
  launchCampaign,
  listCampaigns,
  updateCampaign,
} from '../../src/core/campaigns/operations.ts';
import {
  createContent,
  deleteContent,
  getContent,
  publishContent,
  updateContent,
} from '../../src/core/content/operations.ts';
import { listContent } from '../../src/core/content/list.ts';
import { EVENT_TYPES } from '../../src/core/events/record-event.ts';
import { listMedia } from '../../src/core/media/operations.ts';
import type { Operation } from '../../src/core/operation.ts';
import { startAccountConnection } from '../../src/core/social-accounts/connect.ts';
import { listSocialAccounts } from '../../src/core/social-accounts/operations.ts';
import { listTemplates } from '../../src/core/templates/operations.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from '../../src/core/webhooks/operations.ts';
import { gif, png } from '../fixtures/media/files.ts';
import { boundaryValues, inputFields, mutatedObject, type Mutated } from './mutations.ts';
import { printable, type FuzzRequest } from './oracle.ts';
import {
  BAD_PATH_SEGMENTS,
  deepJson,
  JUNK_BODIES,
  latin1String,
  longString,
  nastyString,
  OVER_BODY_LIMIT,
  percentEncode,
} from './values.ts';
import { signRequest, type World, type WorkspaceIds } from './world.ts';

type Expected = FuzzRequest['expected'];

/** `arbitrary` in one case out of `oneIn`, undefined otherwise. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
type IdKind = 'content' | 'campaigns' | 'webhooks';

/** An endpoint that reads a JSON body or a query into one core operation (handle() in src/rest/handle.ts). */
export interface OperationEndpoint {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** With `{id}` where the resource id goes. */
  path: string;
  operation: Operation;
  idKind?: IdKind;
  /** GET /me answers a past-due or API-less workspace (planChecks false). */
  planChecks?: boolean;
  /** A JSON body (`required`: the route reads one; `ignored`: the route takes no body but parses any sent). */
  body?: 'required' | 'ignored';
  valid?: (world: World) => fc.Arbitrary<Record<string, unknown>>;
  /** Valid values per query parameter. */
  query?: (world: World) => Record<string, fc.Arbitrary<string>>;
}

const CREATE_STATUSES = ['draft', 'pending_review', 'approved'] as const;
const future = fc.constantFrom('2026-04-01T09:00:00Z', '2026-12-24T18:30:00+01:00', '2027-01-01T00:00:00.000Z');
const mediaUrl = fc.constantFrom(
  'https://cdn.example.test/a.png',
  'https://cdn.example.test/b.mp4',
  'http://media.example.test/c.jpg?x=1',
);
const hashtag = fc.constantFrom('coffee', '#morning', 'tag_1', 'café', '日本');

const contentFields = {
  caption: fc.oneof(
    fc.string({ minLength: 1, maxLength: 120 }),
    fc.constantFrom('Hello world', 'Ünïcödé ☕ post', 'مرحبا'),
  ),
  hashtags: fc.uniqueArray(hashtag, { maxLength: 4 }),
  content_type: fc.constantFrom(...CONTENT_TYPES),
  target_platforms: fc.subarray(['twitter', 'linkedin', 'facebook']),
  media_urls: fc.array(mediaUrl, { maxLength: 3 }),
  topic: fc.oneof(fc.string({ maxLength: 50 }), fc.constant(null)),
  platform_specific: fc.constantFrom(
    {},
    { twitter: { caption: 'Short' } },
    { linkedin: { hashtags: ['b2b'], media_urls: ['https://cdn.example.test/l.png'] } },
  ),
  aspect_ratio: fc.constantFrom('1:1', '9:16', '16:9', null),
};

const contentCreate = () =>
  fc.oneof(
    fc.record({ ...contentFields, status: fc.constantFrom(...CREATE_STATUSES) }, { requiredKeys: ['caption'] }),
    fc.record(
      { ...contentFields, status: fc.constant('scheduled'), scheduled_for: future },
      { requiredKeys: ['caption', 'status', 'scheduled_for'] },
    ),
  );
const contentUpdate = () =>
  fc
    .record(
      {
        ...contentFields,
        status: fc.constantFrom('draft', 'pending_review', 'approved', 'rejected'),
        scheduled_for: fc.oneof(future, fc.constant(null)),
      },
      { requiredKeys: [] },
    )
    .filter((body) => Object.keys(body).length > 0);

const contentMix = fc.dictionary(fc.constantFrom(...CONTENT_MIX_KEYS), fc.integer({ min: 1, max: 5 }), { maxKeys: 3 });
const campaignFields = {
  name: fc.oneof(
    fc.string({ minLength: 1, maxLength: 60 }).filter((s) => s.trim().length > 0),
    fc.constantFrom('Spring launch', 'Été 🌞'),
  ),
  description: fc.oneof(fc.string({ maxLength: 80 }), fc.constant(null)),
  posts_per_day: fc.integer({ min: 1, max: 50 }),
  campaign_length_days: fc.integer({ min: 1, max: 365 }),
  start_date: future,
  content_mix: contentMix,
};

const webhookFields = (world: World) => ({
  url: fc.oneof(
    fc.constant(`${world.receiver.url}/hooks/new`),
    fc.string({ maxLength: 20 }).map((path) => `${world.receiver.url}/hooks/${encodeURIComponent(path)}`),
  ),
  events: fc.subarray([...EVENT_TYPES]),
  is_enabled: fc.boolean(),
});

const brandFields = {
  voice: fc.oneof(fc.string({ maxLength: 60 }), fc.constant(null)),
  audience: fc.string({ maxLength: 60 }),
  topics_to_lean_into: fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }),
  topics_to_avoid: fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }),
  style_notes: fc.string({ maxLength: 60 }),
  example_posts: fc.array(fc.string({ maxLength: 60 }), { maxLength: 3 }),
  brand_name: fc.string({ minLength: 1, maxLength: 40 }),
  industry: fc.oneof(fc.constantFrom('coffee', 'saas'), fc.constant(null)),
  website_url: fc.constantFrom('https://example.test', 'http://brand.example.test/about', null),
  tone_formality: fc.integer({ min: 0, max: 10 }),
  tone_humor: fc.integer({ min: 0, max: 10 }),
  tone_energy: fc.integer({ min: 0, max: 10 }),
  vocabulary: fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }),
  forbidden_words: fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }),
  primary_color: fc.constantFrom('#fff', '#1a73e8', null),
  hashtag_strategy: fc.string({ maxLength: 60 }),
};

const limitQuery = fc.oneof(fc.integer({ min: 1, max: 100 }).map(String), fc.constantFrom('25'));
const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
/** Cursors: real ones, the same cut short anywhere, and well-formed base64url of the wrong content. */
const cursorQuery = (ids: WorkspaceIds) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids.cursors) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...ids.cursors), fc.nat())
        .map(([cursor, n]) => cursor.slice(0, n % cursor.length)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        b64([1e20, 'x']),
        b64([-8.64e15 - 1, 'x']),
        b64([1, '']),
        b64([1, 'x'.repeat(65)]),
        b64(['1', 'x']),
        b64([1.5, 'x']),
        b64([1, 'x', 2]),
        b64({ createdAt: 1, id: 'x' }),
        b64('[1,"x"'),
        b64(null),
        `${ids.cursors[0]}=`,
        `${ids.cursors[0]}.${ids.cursors[0]}`,
        'x'.repeat(201),
      ),
    },
  );
const pageQuery = (ids: WorkspaceIds) => ({ limit: limitQuery, cursor: cursorQuery(ids) });

/** Every route that runs one core operation, with what a valid request to it looks like. */
export const OPERATION_ENDPOINTS: OperationEndpoint[] = [
  {
    name: 'GET /api/v1/content',
    method: 'GET',
    path: '/api/v1/content',
    operation: listContent,
    query: (w) => ({
      ...pageQuery(w.ids.a),
      status: fc.constantFrom(...CONTENT_STATUSES),
      content_type: fc.constantFrom(...CONTENT_TYPES),
    }),
  },
  {
    name: 'POST /api/v1/content',
    method: 'POST',
    path: '/api/v1/content',
    operation: createContent,
    body: 'required',
    valid: contentCreate,
  },
  {
    name: 'GET /api/v1/content/{id}',
    method: 'GET',
    path: '/api/v1/content/{id}',
    operation: getContent,
    idKind: 'content',
  },
  {
    name: 'PATCH /api/v1/content/{id}',
    method: 'PATCH',
    path: '/api/v1/content/{id}',
    operation: updateContent,
    idKind: 'content',
    body: 'required',
    valid: contentUpdate,
  },
  {
    name: 'DELETE /api/v1/content/{id}',
    method: 'DELETE',
    path: '/api/v1/content/{id}',
    operation: deleteContent,
    idKind: 'content',
  },
  {
    name: 'POST /api/v1/content/{id}/publish',
    method: 'POST',
    path: '/api/v1/content/{id}/publish',
    operation: publishContent,
    idKind: 'content',
    body: 'required',
    valid: () =>
      fc.record(
        { scheduled_for: fc.oneof(future, fc.constant(null), fc.constant('2020-01-01T00:00:00Z')) },
        { requiredKeys: [] },
      ),
  },
  {
    name: 'GET /api/v1/campaigns',
    method: 'GET',
    path: '/api/v1/campaigns',
    operation: listCampaigns,
    query: (w) => pageQuery(w.ids.a),
  },
  {
    name: 'POST /api/v1/campaigns',
    method: 'POST',
    path: '/api/v1/campaigns',
    operation: createCampaign,
    body: 'required',
    valid: () => fc.record(campaignFields, { requiredKeys: ['name'] }),
  },
  {
    name: 'GET /api/v1/campaigns/{id}',
    method: 'GET',
    path: '/api/v1/campaigns/{id}',
    operation: getCampaign,
    idKind: 'campaigns',
  },
  {
    name: 'PATCH /api/v1/campaigns/{id}',
    method: 'PATCH',
    path: '/api/v1/campaigns/{id}',
    operation: updateCampaign,
    idKind: 'campaigns',
    body: 'required',
    valid: () =>
      fc
        .record({ ...campaignFields, status: fc.constantFrom(...CAMPAIGN_STATUSES) }, { requiredKeys: [] })
        .filter((b) => Object.keys(b).length > 0),
  },
  {
    name: 'DELETE /api/v1/campaigns/{id}',
    method: 'DELETE',
    path: '/api/v1/campaigns/{id}',
    operation: deleteCampaign,
    idKind: 'campaigns',
  },
  {
    name: 'POST /api/v1/campaigns/{id}/launch',
    method: 'POST',
    path: '/api/v1/campaigns/{id}/launch',
    operation: launchCampaign,
    idKind: 'campaigns',
    body: 'ignored',
  },
  {
    name: 'GET /api/v1/webhooks',
    method: 'GET',
    path: '/api/v1/webhooks',
    operation: listWebhooks,
    query: () => ({ limit: limitQuery }),
  },
  {
    name: 'POST /api/v1/webhooks',
    method: 'POST',
    path: '/api/v1/webhooks',
    operation: createWebhook,
    body: 'required',
    valid: (w) => fc.record({ url: webhookFields(w).url, events: webhookFields(w).events }, { requiredKeys: ['url'] }),
  },
  {
    name: 'GET /api/v1/webhooks/{id}',
    method: 'GET',
    path: '/api/v1/webhooks/{id}',
    operation: getWebhook,
    idKind: 'webhooks',
  },
  {
    name: 'PATCH /api/v1/webhooks/{id}',
    method: 'PATCH',
    path: '/api/v1/webhooks/{id}',
    operation: updateWebhook,
    idKind: 'webhooks',
    body: 'required',
    valid: (w) => fc.record(webhookFields(w), { requiredKeys: [] }).filter((b) => Object.keys(b).length > 0),
  },
  {
    name: 'DELETE /api/v1/webhooks/{id}',
    method: 'DELETE',
    path: '/api/v1/webhooks/{id}',
    operation: deleteWebhook,
    idKind: 'webhooks',
  },
  {
    name: 'POST /api/v1/webhooks/{id}/rotate',
    method: 'POST',
    path: '/api/v1/webhooks/{id}/rotate',
    operation: rotateWebhookSecret,
    idKind: 'webhooks',
    body: 'ignored',
  },
  {
    name: 'POST /api/v1/webhooks/{id}/test',
    method: 'POST',
    path: '/api/v1/webhooks/{id}/test',
    operation: testWebhook,
    idKind: 'webhooks',
    body: 'ignored',
  },
  {
    name: 'GET /api/v1/webhooks/{id}/deliveries',
    method: 'GET',
    path: '/api/v1/webhooks/{id}/deliveries',
    operation: listWebhookDeliveries,
    idKind: 'webhooks',
    query: () => ({ limit: limitQuery }),
  },
  { name: 'GET /api/v1/me', method: 'GET', path: '/api/v1/me', operation: getAccount, planChecks: false },
  {
    name: 'GET /api/v1/social-accounts',
    method: 'GET',
    path: '/api/v1/social-accounts',
    operation: listSocialAccounts,
  },
  {
    // The fuzzed world configures no platform app, so a valid request is 422 platform_not_configured.
    name: 'POST /api/v1/social-accounts/connect',
    method: 'POST',
    path: '/api/v1/social-accounts/connect',
    operation: startAccountConnection,
    body: 'required',
    valid: () =>
      fc.record(
        {
          platform: fc.constantFrom('twitter', 'linkedin', ' LinkedIn '),
          return_url: fc.constantFrom('https://app.example.test/done', 'http://localhost:8080/cb?x=1'),
        },
        { requiredKeys: ['platform'] },
      ),
  },
  { name: 'GET /api/v1/brand-profile', method: 'GET', path: '/api/v1/brand-profile', operation: getBrandProfile },
  {
    name: 'PATCH /api/v1/brand-profile',
    method: 'PATCH',
    path: '/api/v1/brand-profile',
    operation: updateBrandProfile,
    body: 'required',
    valid: () => fc.record(brandFields, { requiredKeys: [] }).filter((b) => Object.keys(b).length > 0),
  },
  {
    name: 'PATCH /api/v1/brand_profile',
    method: 'PATCH',
    path: '/api/v1/brand_profile',
    operation: updateBrandProfile,
    body: 'required',
    valid: () => fc.record(brandFields, { requiredKeys: [] }).filter((b) => Object.keys(b).length > 0),
  },
  {
    name: 'GET /api/v1/media-library',
    method: 'GET',
    path: '/api/v1/media-library',
    operation: listMedia,
    query: (w) => ({ ...pageQuery(w.ids.a), asset_type: fc.constantFrom(...ASSET_TYPES) }),
  },
  {
    name: 'GET /api/v1/templates',
    method: 'GET',
    path: '/api/v1/templates',
    operation: listTemplates,
    query: (w) => ({
      ...pageQuery(w.ids.a),
      niche: fc.constantFrom('fitness', 'saas', 'Real-Estate'),
      source_platform: fc.constantFrom(...PLATFORMS),
      content_type: fc.constantFrom(...CONTENT_TYPES),
    }),
  },
  {
    name: 'GET /api/v1/analytics/overview',
    method: 'GET',
    path: '/api/v1/analytics/overview',
    operation: getAnalyticsOverview,
    query: () => ({ days: fc.integer({ min: 1, max: 365 }).map(String) }),
  },
];

// ---------------------------------------------------------------------------------------------
// Request parts shared by the operation endpoints

interface AuthChoice {
  header: string | undefined;
  label: string;
  /** The workspace the request acts for, when the key is good. */
  as?: 'a' | 'b';
  /** What the gate must answer, when the key fails. */
  expected?: Expected;
}

function randomKeyBody(length: number): fc.Arbitrary<string> {
  const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return fc.array(fc.constantFrom(...base62), { minLength: length, maxLength: length }).map((chars) => chars.join(''));
}

/** Good keys (mostly), and every way the spec lets a key fail, with the error each must get. */
export function authChoice(world: World, planChecks = true): fc.Arbitrary<AuthChoice> {
  const a = world.a.apiKey;
  const missing: Expected = { status: 401, code: 'missing_key' };
  const invalid: Expected = { status: 401, code: 'invalid_key' };
  return fc.oneof(
    { weight: 24, arbitrary: fc.constant<AuthChoice>({ header: `Bearer ${a}`, label: 'A', as: 'a' }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<AuthChoice>(
        { header: `bearer ${a}`, label: 'A lowercase scheme', as: 'a' },
        { header: `Bearer \t ${a}`, label: 'A extra whitespace', as: 'a' },
      ),
    },
    { weight: 4, arbitrary: fc.constant<AuthChoice>({ header: world.b.headers.authorization, label: 'B', as: 'b' }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<AuthChoice>(
        { header: undefined, label: 'no header', expected: missing },
        { header: 'Bearer', label: 'scheme only', expected: missing },
        { header: `Basic ${Buffer.from(`user:${a}`).toString('base64')}`, label: 'basic', expected: missing },
        { header: `Token ${a}`, label: 'token scheme', expected: missing },
        { header: a, label: 'no scheme', expected: missing },
        { header: `Bearer ${a}, Bearer ${world.b.apiKey}`, label: 'two keys', expected: missing },
        { header: `Bearer ${a.slice(0, -1)}`, label: 'truncated', expected: invalid },
        { header: `Bearer ${a}x`, label: 'one char more', expected: invalid },
        { header: `Bearer ${a.slice(0, -1)}${a.endsWith('A') ? 'B' : 'A'}`, label: 'tampered', expected: invalid },
        { header: `Bearer ${a.toUpperCase()}`, label: 'upper-cased (no np_live_ prefix)', expected: missing },
        { header: 'Bearer np_live_', label: 'prefix only', expected: invalid },
        { header: world.badKeys.revoked, label: 'revoked', expected: invalid },
        { header: world.badKeys.expired, label: 'expired', expected: { status: 401, code: 'expired_key' } },
        {
          header: world.badKeys.pastDue,
          label: 'past due',
          expected: planChecks ? { status: 402, code: 'payment_required' } : undefined,
        },
        {
          header: world.badKeys.freePlan,
          label: 'free plan',
          expected: planChecks ? { status: 403, code: 'plan_forbidden' } : undefined,
        },
      ),
    },
    {
      weight: 1,
      arbitrary: randomKeyBody(38).map((body) => ({
        header: `Bearer np_live_${body}`,
        label: 'forged',
        expected: invalid,
      })),
    },
    {
      weight: 1,
      arbitrary: latin1String.map((junk) => ({
        header: `Bearer np_live_${junk}`,
        label: 'prefix + junk',
        expected: { status: 401 },
      })),
    },
    { weight: 1, arbitrary: latin1String.map((junk) => ({ header: junk, label: 'junk', expected: { status: 401 } })) },
  );
}

interface ContentTypeChoice {
  header: string | undefined;
  /** The route must refuse any non-empty body sent with it (415). */
  refused: boolean;
  /** JSON in UTF-8, however spelled: a JSON body is read as sent. */
  json?: boolean;
}

const contentTypeChoice: fc.Arbitrary<ContentTypeChoice> = fc.oneof(
  { weight: 20, arbitrary: fc.constant({ header: 'application/json', refused: false, json: true }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      { header: 'application/json; charset=utf-8', refused: false, json: true },
      { header: 'Application/JSON', refused: false, json: true },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      { header: undefined, refused: true },
      { header: 'text/plain', refused: true },
      { header: 'application/x-www-form-urlencoded', refused: true },
      { header: 'multipart/form-data; boundary=xyz', refused: true },
      { header: 'application/json; charset=latin1', refused: true },
      { header: 'application/xml', refused: true },
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          'application/json; charset=utf-16',
          'application/vnd.api+json',
          'application/json-patch+json',
          '*/*',
          'application/',
          'json',
          'application/json; boundary=x; charset',
          'application/json;;;',
        ),
        latin1String,
      )
      .map((header) => ({ header, refused: false })),
  },
);

interface BodyChoice {
  bytes: Buffer | undefined;
  mutation: string;
  /** An unmutated valid body. */
  clean: boolean;
  oversized: boolean;
}

const encode = (mutated: Mutated): BodyChoice => ({
  bytes: Buffer.from(JSON.stringify(mutated.value)),
  mutation: mutated.mutation,
  clean: mutated.mutation === 'valid',
  oversized: mutated.oversized === true,
});

/** JSON bodies from the valid generator, mutated, plus texts that are no JSON object at all. */
function bodyChoice(valid: fc.Arbitrary<Record<string, unknown>>, operation: Operation): fc.Arbitrary<BodyChoice> {
  const raw = (bytes: Buffer | undefined, mutation: string): BodyChoice => ({
    bytes,
    mutation,
    clean: false,
    oversized: false,
  });
  return fc.oneof(
    { weight: 24, arbitrary: mutatedObject(valid, inputFields(operation)).map(encode) },
    { weight: 2, arbitrary: fc.constantFrom(...JUNK_BODIES).map((text) => raw(Buffer.from(text), 'junk text')) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(10, 1000, 100_000)
        .map((depth) => raw(Buffer.from(deepJson(depth)), `nested ${depth} deep`)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        raw(
          Buffer.concat([
            Buffer.from('{"caption":"'),
            Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]),
            Buffer.from('","name":"x"}'),
          ]),
          'invalid UTF-8',
        ),
        raw(undefined, 'no body'),
        raw(Buffer.alloc(0), 'empty body'),
        {
          ...raw(Buffer.from(JSON.stringify({ caption: 'x'.repeat(OVER_BODY_LIMIT) })), 'over the body limit'),
          oversized: true,
        },
      ),
    },
  );
}

/** POST routes take an Idempotency-Key: none, fresh, reused from a small pool, or malformed. */
const idempotencyChoice = fc.oneof(
  { weight: 12, arbitrary: fc.constant<{ key: string | undefined; bad: boolean }>({ key: undefined, bad: false }) },
  { weight: 2, arbitrary: fc.uuid().map((key) => ({ key, bad: false })) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('fuzz-key-1', 'fuzz-key-2', 'fuzz-key-3').map((key) => ({ key, bad: false })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { key: '', bad: true },
      { key: 'k'.repeat(256), bad: true },
      { key: 'k'.repeat(255), bad: false },
    ),
  },
  { weight: 1, arbitrary: latin1String.map((key) => ({ key, bad: key.length === 0 })) },
);

interface IdChoice {
  segment: string;
  /** The workspace the resource belongs to; to any other caller it must answer 404. */
  owner?: 'a' | 'b';
}

const decodes = (segment: string): boolean => {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
};

/**
 * Node's HTTP parser answers a request line and headers over 16 KB itself (431, no body), before the
 * app sees it; the generated paths stay under that, so every answer checked is the app's.
 */
const MAX_PATH_SEGMENT = 8 * 1024;

/** Ids for the path: A's own (most), B's (must be 404), ids of another kind, random and hostile segments. */
function idChoice(world: World, kind: IdKind): fc.Arbitrary<IdChoice> {
  const otherKind = (['content', 'campaigns', 'webhooks'] as const).filter((k) => k !== kind);
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc.constantFrom(...world.ids.a[kind]).map((segment): IdChoice => ({ segment, owner: 'a' })),
    },
    {
      weight: 4,
      arbitrary: fc.constantFrom(...world.ids.b[kind]).map((segment): IdChoice => ({ segment, owner: 'b' })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...otherKind.flatMap((k) => world.ids.a[k])).map((segment): IdChoice => ({ segment })),
    },
    { weight: 1, arbitrary: fc.uuid({ version: 7 }).map((segment): IdChoice => ({ segment })) },
    { weight: 2, arbitrary: fc.constantFrom(...BAD_PATH_SEGMENTS).map((segment): IdChoice => ({ segment })) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(nastyString, longString)
        .map(percentEncode)
        .filter((segment) => segment.length > 0 && segment.length <= MAX_PATH_SEGMENT)
        .map((segment): IdChoice => ({ segment })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...world.ids.a[kind])
        .map((id): IdChoice => ({ segment: percentEncode(` ${id.toUpperCase()}\u0000`) })),
    },
  );
}

/** A query string from each parameter's valid values, limits and hostile text, repeated and bracketed keys, junk. */
function queryChoice(
  valid: Record<string, fc.Arbitrary<string>>,
  operation: Operation,
): fc.Arbitrary<{ query: string; mutation: string }> {
  const fields = inputFields(operation);
  const names = [...new Set([...Object.keys(valid), ...Object.keys(fields)])];
  const asText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));
  const valueFor = (name: string): fc.Arbitrary<[string, string]> => {
    const limits = boundaryValues(fields[name] ?? {}).map(asText);
    const options: Array<fc.Arbitrary<string>> = [
      nastyString,
      fc.constantFrom('', '0', '-1', '101', '1e3', '1.5', 'abc', ' 5', '%', '%zz', '99999999999999999999'),
    ];
    if (limits.length > 0) options.push(fc.constantFrom(...limits));
    return fc.tuple(
      fc.constant(name),
      fc.oneof(
        { weight: 6, arbitrary: valid[name] ?? fc.constant('') },
        ...options.map((arbitrary) => ({ weight: 1, arbitrary })),
      ),
    );
  };
  const pair =
    names.length > 0 ? fc.constantFrom(...names).chain(valueFor) : fc.tuple(fc.constant('limit'), fc.constant('1'));
  const extraPair = fc.tuple(
    fc.oneof(fc.constantFrom('__proto__', 'constructor', 'status[]', 'limit[]', 'cursor[x]', 'a.b', ''), nastyString),
    nastyString,
  );
  return fc
    .tuple(
      fc.array(pair, { maxLength: 4 }),
      sometimes(extraPair, 5),
      sometimes(
        fc.constantFrom(
          '&&&',
          '=',
          '==x',
          '%',
          '&limit',
          'limit=1&limit=2',
          'status=draft&status=archived',
          '%E0%A4%A=%ED%A0%80',
          '?&?',
        ),
        8,
      ),
    )
    .map(([pairs, extra, raw]) => {
      const parts = [...pairs, ...(extra ? [extra] : [])].map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`);
      if (raw) parts.push(raw);
      return {
        query: parts.join('&'),
        mutation: `query ${pairs.map(([k]) => k).join(',')}${extra ? ' +extra' : ''}${raw ? ' +raw' : ''}`,
      };
    });
}

/** Extra headers a client or proxy might add, none of which may change the outcome into a failure the spec does not list. */
const extraHeaders = sometimes(
  fc.constantFrom<Record<string, string>>(
    { accept: 'text/html' },
    { accept: 'application/xml;q=1, */*;q=0' },
    { 'x-forwarded-for': '10.0.0.1, 203.0.113.9' },
    { origin: 'https://evil.example.test' },
    { 'content-encoding': 'gzip' },
    { 'content-encoding': 'br' },
    { 'content-encoding': 'x-unknown' },
    { 'accept-encoding': 'gzip;q=0, identity' },
    { range: 'bytes=0-10' },
    { 'if-none-match': '*' },
    { 'x-http-method-override': 'DELETE' },
  ),
  8,
);

/** Requests to one operation endpoint: every part generated, and the answer the spec fixes where it does. */
export function operationRequests(world: World, endpoint: OperationEndpoint): fc.Arbitrary<FuzzRequest> {
  const noBody = fc.constant<BodyChoice>({ bytes: undefined, mutation: 'no body', clean: true, oversized: false });
  const body =
    endpoint.body === 'required' && endpoint.valid
      ? bodyChoice(endpoint.valid(world), endpoint.operation)
      : endpoint.body === 'ignored'
        ? fc.oneof(
            { weight: 6, arbitrary: noBody },
            { weight: 1, arbitrary: bodyChoice(fc.constant({}), endpoint.operation) },
          )
        : noBody;
  const query = endpoint.query
    ? queryChoice(endpoint.query(world), endpoint.operation)
    : fc.constant({ query: '', mutation: '' });
  const id = endpoint.idKind ? idChoice(world, endpoint.idKind) : fc.constant<IdChoice>({ segment: '' });
  const idempotency = endpoint.method === 'POST' ? idempotencyChoice : fc.constant({ key: undefined, bad: false });
  return fc
    .record({
      auth: authChoice(world, endpoint.planChecks ?? true),
      contentType: contentTypeChoice,
      body,
      query,
      id,
      idempotency,
      extra: extraHeaders,
    })
    .map(({ auth, contentType, body, query, id, idempotency, extra }) => {
      const headers: Record<string, string> = { ...(extra ?? {}) };
      if (auth.header !== undefined) headers.authorization = auth.header;
      if (contentType.header !== undefined) headers['content-type'] = contentType.header;
      if (idempotency.key !== undefined) headers['idempotency-key'] = idempotency.key;
      const path = endpoint.path.replace('{id}', id.segment) + (query.query ? `?${query.query}` : '');
      const hasBody = body.bytes !== undefined && body.bytes.length > 0;
      const foreign = id.owner !== undefined && auth.as !== undefined && id.owner !== auth.as;
      const encoded = extra?.['content-encoding'] !== undefined;
      let expected: Expected;
      // A dot segment (`.`, `..`, `%2e`) is resolved by the URL parser before sending: another route, no fixed answer.
      const dotSegment = /^(\.|%2e){1,2}$/i.test(id.segment);
      const hasKey = idempotency.key !== undefined;
      // The router decodes the path before any handler runs: a segment that is not valid percent-encoding names no route.
      if (dotSegment) expected = undefined;
      else if (!decodes(id.segment)) expected = { status: 404, code: 'not_found' };
      else if (auth.expected) expected = auth.expected;
      else if (auth.header === undefined || auth.as === undefined) expected = undefined;
      else if (hasBody && contentType.refused && !encoded) expected = { status: 415, code: 'unsupported_media_type' };
      else if (
        body.oversized &&
        !contentType.refused &&
        contentType.header?.toLowerCase().startsWith('application/json') &&
        !encoded
      )
        expected = { status: 413, code: 'payload_too_large' };
      else if (
        foreign &&
        body.clean &&
        !hasKey &&
        (contentType.json || contentType.header === undefined) &&
        !extra &&
        !query.query
      )
        expected = { status: 404, code: 'not_found' };
      return printable({
        endpoint: endpoint.name,
        method: endpoint.method,
        path,
        headers,
        body: body.bytes,
        mutation: [
          auth.label,
          body.mutation,
          query.mutation,
          foreign ? "other workspace's id" : '',
          hasKey ? 'idempotency key' : '',
        ]
          .filter(Boolean)
          .join('; '),
        expected,
      });
    });
}

// ---------------------------------------------------------------------------------------------
// Routes that are not one JSON operation: uploads, public files, platform callbacks, /mcp, pages

/** A multipart body built by hand, so boundaries, parts and lengths can be wrong on purpose. */
function multipart(
  parts: Array<{ name: string; filename?: string; type?: string; data: Buffer }>,
  boundary: string,
  close = true,
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`,
      ),
      part.data,
      Buffer.from('\r\n'),
    );
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export function uploadRequests(world: World, mediaMaxBytes: number): fc.Arbitrary<FuzzRequest> {
  const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
  const file = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom({ data: png(2, 2), label: 'png' }, { data: gif(), label: 'gif' }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        { data: Buffer.from('MZ\x90\x00 not an image'), label: 'exe' },
        { data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), label: 'svg' },
        { data: Buffer.alloc(0), label: 'empty file' },
        { data: png(2, 2).subarray(0, 20), label: 'truncated png' },
        { data: Buffer.alloc(mediaMaxBytes + 1, 0x89), label: 'over MEDIA_MAX_BYTES' },
      ),
    },
  );
  const tags = fc.array(
    fc.oneof(
      fc.constantFrom('launch', 'a,b,,c', ' x '),
      nastyString,
      longString.map((s) => s.slice(0, 60)),
    ),
    { maxLength: 25 },
  );
  const filename = fc.oneof(
    fc.constantFrom('photo.png', 'C:\\fakepath\\x.png', '../../etc/passwd', '', 'a'.repeat(400)),
    nastyString,
  );
  const shape = fc.constantFrom(
    'normal',
    'no file',
    'wrong field',
    'two files',
    'unclosed',
    'no boundary',
    'other boundary',
    'json instead',
  );
  return fc
    .record({
      auth: authChoice(world),
      file,
      tags,
      filename,
      shape,
      path: fc.constantFrom('/media_assets', '/api/v1/media_assets'),
    })
    .map(({ auth, file, tags, filename, shape, path }) => {
      const headers: Record<string, string> = {};
      if (auth.header !== undefined) headers.authorization = auth.header;
      const safeName = filename.replace(/["\r\n]/g, '_');
      const tagParts = tags.map((t) => ({ name: 'tags', data: Buffer.from(t) }));
      const filePart = { name: 'file', filename: safeName, type: 'application/octet-stream', data: file.data };
      let body: Buffer;
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
      switch (shape) {
        case 'no file':
          body = multipart(tagParts, boundary);
          break;
        case 'wrong field':
          body = multipart([{ ...filePart, name: 'upload' }, ...tagParts], boundary);
          break;
        case 'two files':
          body = multipart([filePart, filePart, ...tagParts], boundary);
          break;
        case 'unclosed':
          body = multipart([...tagParts, filePart], boundary, false).subarray(0, -7);
          break;
        case 'no boundary':
          headers['content-type'] = 'multipart/form-data';
          body = multipart([filePart], boundary);
          break;
        case 'other boundary':
          body = multipart([filePart], 'another');
          break;
        case 'json instead':
          headers['content-type'] = 'application/json';
          body = Buffer.from(JSON.stringify({ file: file.data.toString('base64') }));
          break;
        default:
          body = multipart([...tagParts, filePart], boundary);
      }
      return printable({
        endpoint: 'POST /media_assets',
        method: 'POST',
        path,
        headers,
        body,
        mutation: `${auth.label}; ${shape}; ${file.label}; ${tags.length} tags`,
        expected: auth.expected,
      });
    });
}

export function mediaFileRequests(world: World): fc.Arbitrary<FuzzRequest> {
  const file = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...world.ids.a.mediaFiles, ...world.ids.b.mediaFiles) },
    { weight: 1, arbitrary: fc.constantFrom(...world.ids.a.mediaFiles).map((f) => f.replace(/\.\w+$/, '.gif')) },
    { weight: 1, arbitrary: fc.constantFrom(...world.ids.a.mediaFiles).map((f) => f.split('.')[0]) },
    { weight: 1, arbitrary: fc.constantFrom(...world.ids.a.mediaFiles).map((f) => `${f}.png`) },
    { weight: 2, arbitrary: fc.constantFrom(...BAD_PATH_SEGMENTS) },
    { weight: 1, arbitrary: nastyString.filter((s) => s.length > 0).map(percentEncode) },
  );
  const range = sometimes(
    fc.constantFrom(
      'bytes=0-0',
      'bytes=0-',
      'bytes=-5',
      'bytes=5-1',
      'bytes=999999-',
      'bytes=0-1,3-4',
      'bytes=abc',
      'items=0-1',
      'bytes=',
      'bytes=-0',
    ),
    3,
  );
  return fc
    .record({
      file,
      range,
      method: fc.constantFrom('GET', 'GET', 'HEAD'),
      conditional: sometimes(fc.constantFrom('*', '"x"', 'W/"y"'), 4),
    })
    .map(({ file, range, method, conditional }) => {
      const headers: Record<string, string> = {};
      if (range) headers.range = range;
      if (conditional) headers['if-none-match'] = conditional;
      return printable({
        endpoint: 'GET /media/{file}',
        method,
        path: `/media/${file}`,
        headers,
        mutation: `${range ?? ''} ${conditional ?? ''}`,
      });
    });
}

export function callbackRequests(world: World): fc.Arbitrary<FuzzRequest> {
  const userIds = [...world.ids.a.facebookUserIds, ...world.ids.b.facebookUserIds, '999', ''];
  const signed = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(...userIds).map((user_id) => signRequest({ user_id, algorithm: 'HMAC-SHA256' })),
    },
    { weight: 1, arbitrary: oddValueSigned() },
    { weight: 1, arbitrary: fc.constantFrom(...userIds).map((user_id) => signRequest({ user_id }, 'wrong secret')) },
    { weight: 1, arbitrary: fc.oneof(nastyString, longString, fc.constantFrom('.', 'a.b', '..', 'sig.', '.payload')) },
  );
  const form = fc.oneof(
    {
      weight: 4,
      arbitrary: signed.map((s) => ({
        text: new URLSearchParams({ signed_request: s }).toString(),
        type: 'application/x-www-form-urlencoded',
        label: 'form',
      })),
    },
    {
      weight: 1,
      arbitrary: signed.map((s) => ({
        text: JSON.stringify({ signed_request: s }),
        type: 'application/json',
        label: 'json',
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { text: '', type: 'application/x-www-form-urlencoded', label: 'empty' },
        { text: 'signed_request', type: 'application/x-www-form-urlencoded', label: 'key only' },
        { text: 'signed_request=a&signed_request=b', type: 'application/x-www-form-urlencoded', label: 'twice' },
        {
          text: Array.from({ length: 2000 }, (_, i) => `f${i}=1`).join('&'),
          type: 'application/x-www-form-urlencoded',
          label: 'many fields',
        },
        {
          text: `signed_request=${'x'.repeat(OVER_BODY_LIMIT)}`,
          type: 'application/x-www-form-urlencoded',
          label: 'huge',
        },
        { text: 'signed_request=%E0%A4%A&x=%', type: 'application/x-www-form-urlencoded', label: 'bad escapes' },
        { text: 'signed_request=x', type: 'application/x-www-form-urlencoded; charset=latin1', label: 'latin1' },
      ),
    },
  );
  const platform = fc.oneof(
    { weight: 4, arbitrary: fc.constant('facebook') },
    { weight: 1, arbitrary: fc.constantFrom('twitter', 'instagram', 'unknown', 'FACEBOOK', '%00', '..') },
  );
  return fc
    .record({ platform, kind: fc.constantFrom('deauthorize', 'data-deletion'), form })
    .map(({ platform, kind, form }) =>
      printable({
        endpoint: `POST /callbacks/{platform}/${kind}`,
        method: 'POST',
        path: `/callbacks/${platform}/${kind}`,
        headers: { 'content-type': form.type },
        body: Buffer.from(form.text),
        mutation: `${platform} ${form.label}`,
      }),
    );
}

/** A correctly signed request whose payload is not what the platform sends. */
function oddValueSigned(): fc.Arbitrary<string> {
  return fc
    .constantFrom<unknown>(
      {},
      { user_id: 1 },
      { user_id: null },
      [],
      'x',
      { user_id: 'x'.repeat(5000) },
      { user_id: '\u0000' },
    )
    .map((payload) => signRequest(payload));
}

export function deletionStatusRequests(): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      fc.constantFrom('facebook', 'twitter', 'x'),
      fc.oneof(
        fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 40 }),
        fc.constantFrom(...BAD_PATH_SEGMENTS),
      ),
    )
    .filter(([, code]) => code.length > 0)
    .map(([platform, code]) =>
      printable({
        endpoint: 'GET /callbacks/{platform}/data-deletion/{code}',
        method: 'GET',
        path: `/callbacks/${platform}/data-deletion/${code}`,
        headers: {},
        mutation: '',
      }),
    );
}

/** JSON-RPC over POST /mcp: valid calls with fuzzed arguments, malformed messages, missing Accept, bad keys. */
export function mcpHttpRequests(world: World): fc.Arbitrary<FuzzRequest> {
  const call = (name: string, args: unknown) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const message = fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            'service_list_content',
            'service_create_content',
            'service_get_content',
            'service_get_analytics',
          ),
          fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 })),
        )
        .map(([n, a]) => JSON.stringify(call(n, a))),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
        }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'tools/list' }),
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'no/such' }),
        JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/call', params: null }),
        JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        ]),
        JSON.stringify(call('service_nope', {})),
        JSON.stringify(call('service_create_content', { caption: 'x'.repeat(OVER_BODY_LIMIT) })),
        '[]',
        '{}',
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(...JUNK_BODIES) },
  );
  const accept = fc.constantFrom(
    'application/json, text/event-stream',
    'application/json, text/event-stream',
    'application/json, text/event-stream',
    'application/json',
    'text/html',
    undefined,
  );
  return fc
    .record({
      auth: authChoice(world, false),
      message,
      accept,
      origin: sometimes(fc.constantFrom('https://evil.example.test', 'https://api.example.test'), 6),
    })
    .map(({ auth, message, accept, origin }) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (auth.header !== undefined) headers.authorization = auth.header;
      if (accept) headers.accept = accept;
      if (origin) headers.origin = origin;
      const expected =
        origin === 'https://evil.example.test' ? { status: 403, code: 'origin_not_allowed' } : auth.expected;
      return printable({
        endpoint: 'POST /mcp',
        method: 'POST',
        path: '/mcp',
        headers,
        body: Buffer.from(message),
        mutation: auth.label,
        expected,
      });
    });
}

/** Unknown routes, wrong methods on known ones, and the public pages, with hostile paths and queries. */
export function otherRouteRequests(world: World): fc.Arbitrary<FuzzRequest> {
  const known = [
    '/api/v1/content',
    `/api/v1/content/${world.ids.a.content[0]}`,
    `/api/v1/campaigns/${world.ids.a.campaigns[0]}/launch`,
    '/api/v1/webhooks',
    '/api/v1/me',
    '/api/v1/brand-profile',
    '/media_assets',
    '/mcp',
    '/callbacks/facebook/deauthorize',
    '/docs/errors',
    '/healthz',
  ];
  const path = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '/',
        '/api',
        '/api/v1',
        '/api/v2/content',
        '/api/v1/content/',
        '/API/V1/CONTENT',
        '/api/v1//content',
        '/api/v1/content/x/y/z',
        '/api/v1/%2e%2e/%2e%2e/etc/passwd',
        '/api/v1/templates/x',
        '/.env',
        '/docs/errors/',
        '/api/v1/content;jsessionid=1',
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.oneof(fc.constantFrom(...BAD_PATH_SEGMENTS), nastyString.map(percentEncode)), {
          minLength: 1,
          maxLength: 4,
        })
        .map((segments) => `/api/v1/${segments.join('/')}`),
    },
  );
  return fc
    .record({
      path,
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
      auth: authChoice(world),
      query: sometimes(fc.constantFrom('x=1', '%', 'a[b]=c', '__proto__[x]=1'), 4),
    })
    .map(({ path, method, auth, query }) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (auth.header !== undefined) headers.authorization = auth.header;
      const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) ? Buffer.from('{"x":1}') : undefined;
      return printable({
        endpoint: 'other routes and methods',
        method,
        path: query ? `${path}?${query}` : path,
        headers,
        body,
        mutation: auth.label,
      });
    });
}

// ---------------------------------------------------------------------------------------------
// HTTP framing that fetch cannot produce, written to a raw socket

/** A request as bytes on the wire. */
export interface RawRequest {
  bytes: Buffer;
  label: string;
}

/**
 * Lengths that lie, broken chunking, forbidden header bytes, odd request lines and targets. Node's
 * HTTP parser answers the framing errors itself (a bare 400 or 431, before the app sees anything);
 * what reaches the app must be answered like any other request.
 */
export function rawRequests(world: World): fc.Arbitrary<RawRequest> {
  const key = world.a.apiKey;
  const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
  const base = (method: string, target: string, extra: string[] = []) => [
    `${method} ${target} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${key}`,
    'Connection: close',
    ...extra,
  ];
  const body = '{"caption":"raw"}';
  const cases: Array<[string, Buffer]> = [
    [
      'length longer than the body',
      Buffer.from(
        head(base('POST', '/api/v1/content', ['Content-Type: application/json', 'Content-Length: 100'])) + body,
      ),
    ],
    [
      'length shorter than the body',
      Buffer.from(
        head(base('POST', '/api/v1/content', ['Content-Type: application/json', 'Content-Length: 5'])) + body,
      ),
    ],
    [
      'negative length',
      Buffer.from(
        head(base('POST', '/api/v1/content', ['Content-Type: application/json', 'Content-Length: -1'])) + body,
      ),
    ],
    [
      'two lengths',
      Buffer.from(
        head(
          base('POST', '/api/v1/content', [
            'Content-Type: application/json',
            'Content-Length: 17',
            'Content-Length: 3',
          ]),
        ) + body,
      ),
    ],
    [
      'length and chunked',
      Buffer.from(
        head(
          base('POST', '/api/v1/content', [
            'Content-Type: application/json',
            'Content-Length: 17',
            'Transfer-Encoding: chunked',
          ]),
        ) + body,
      ),
    ],
    [
      'bad chunk size',
      Buffer.from(
        head(base('POST', '/api/v1/content', ['Content-Type: application/json', 'Transfer-Encoding: chunked'])) +
          'zz\r\nabc\r\n0\r\n\r\n',
      ),
    ],
    [
      'chunked, cut short',
      Buffer.from(
        head(base('POST', '/api/v1/content', ['Content-Type: application/json', 'Transfer-Encoding: chunked'])) +
          '11\r\n{"caption":',
      ),
    ],
    [
      'chunked, valid',
      Buffer.from(
        head(base('POST', '/api/v1/content', ['Content-Type: application/json', 'Transfer-Encoding: chunked'])) +
          `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      ),
    ],
    ['NUL in a header', Buffer.from(head(base('GET', '/api/v1/me', ['X-Test: a\u0000b'])))],
    ['bare CR in a header', Buffer.from(head(base('GET', '/api/v1/me', ['X-Test: a\rb'])))],
    [
      'UTF-8 bytes in Authorization',
      Buffer.concat([
        Buffer.from('GET /api/v1/me HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer '),
        Buffer.from('ключ🔑'),
        Buffer.from('\r\n\r\n'),
      ]),
    ],
    ['header too large', Buffer.from(head(base('GET', '/api/v1/me', [`X-Big: ${'a'.repeat(20_000)}`])))],
    ['absolute-form target', Buffer.from(head(base('GET', 'http://evil.example.test/api/v1/me')))],
    ['asterisk target', Buffer.from(head(base('OPTIONS', '*')))],
    ['space in the path', Buffer.from(head(base('GET', '/api/v1/con tent')))],
    [
      'raw bytes in the path',
      Buffer.concat([
        Buffer.from('GET /api/v1/content/'),
        Buffer.from([0xff, 0xfe, 0x80]),
        Buffer.from(` HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`),
      ]),
    ],
    ['HTTP/1.0', Buffer.from(head(['GET /api/v1/me HTTP/1.0', `Authorization: Bearer ${key}`]))],
    [
      'HTTP/2.0 on HTTP/1',
      Buffer.from(head(base('GET', '/api/v1/me').map((l, i) => (i === 0 ? 'GET /api/v1/me HTTP/2.0' : l)))),
    ],
    ['unknown method', Buffer.from(head(base('BREW', '/api/v1/content')))],
    ['lowercase method', Buffer.from(head(base('get', '/api/v1/me')))],
    ['no Host', Buffer.from(head(base('GET', '/api/v1/me').filter((l) => !l.startsWith('Host'))))],
    [
      'two Authorization headers',
      Buffer.from(head([...base('GET', '/api/v1/me'), `Authorization: Bearer ${world.b.apiKey}`])),
    ],
    [
      'two Content-Types',
      Buffer.from(
        head(
          base('POST', '/api/v1/content', [
            'Content-Type: text/plain',
            'Content-Type: application/json',
            `Content-Length: ${body.length}`,
          ]),
        ) + body,
      ),
    ],
    ['obsolete line folding', Buffer.from(head(base('GET', '/api/v1/me', ['X-Folded: a', ' b'])))],
    ['garbage', Buffer.from('\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003')],
    ['empty line only', Buffer.from('\r\n\r\n')],
  ];
  return fc
    .constantFrom(...cases)
    .map(([label, bytes]) => ({ bytes, label, [fc.toStringMethod]: () => `raw: ${label}` }));
}
