import SwaggerParser from '@apidevtools/swagger-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { OUTSIDE_THE_DOCUMENT, nonConformance } from '../helpers/openapi-conformance.ts';
import { BASE_URL, DOCS_URL, baseEnv } from '../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

const METHODS = ['get', 'post', 'patch', 'delete', 'put', 'head', 'options'];

/** Every (method, path) the Express app routes, read from its router stack; `:id` written `{id}`. */
function expressRoutes(app: any): string[] {
  const found: string[] = [];
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = `${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}');
        const methods = Object.keys(layer.route.methods).filter((m) => m !== '_all');
        for (const method of methods.length > 0 ? methods : ['all']) found.push(`${method.toUpperCase()} ${path}`);
      } else if (Array.isArray(layer.handle?.stack)) {
        walk(
          layer.handle.stack,
          prefix + (typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : ''),
        );
      }
    }
  };
  walk(app.router.stack, '');
  return found.sort();
}

const documentedRoutes = (document: any): string[] =>
  Object.entries(document.paths as Record<string, any>)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();

const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });

describe('OpenAPI document', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  let document: any;
  beforeEach(async () => {
    runtime = await testRuntime({ env: baseEnv });
    server = await startTestServer(runtime);
    const res = await call(server, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    document = res.body;
  });
  afterEach(() => server.close());

  it('is served without a key and validates as OpenAPI 3.1 with swagger-parser', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: BASE_URL }]);
    expect(document.externalDocs.url).toBe(DOCS_URL);
    // validate() dereferences in place; the served copy stays as it came.
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeDefined();
  });

  it('describes every route the Express app serves, and no other (MCP and metrics aside)', () => {
    const served = expressRoutes(createApp(runtime)).filter(
      (route) => !OUTSIDE_THE_DOCUMENT.test(route.split(' ')[1]!),
    );
    expect(served.length).toBeGreaterThan(30);
    expect(documentedRoutes(document)).toEqual(served);
  });

  it('puts every /api/v1 route behind the bearer scheme, with the 401, the 429 shape and the rate-limit headers', () => {
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    const rateLimitHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
    for (const [path, item] of Object.entries(document.paths as Record<string, any>)) {
      if (!path.startsWith('/api/v1/') || path === '/api/v1/openapi.json') continue;
      for (const [method, operation] of Object.entries(item as Record<string, any>)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(operation.security, where).toBeUndefined();
        expect(operation.responses['401'], where).toBeDefined();
        const tooMany = operation.responses['429'];
        expect(tooMany.content['application/json'].schema, where).toEqual({
          $ref: '#/components/schemas/RateLimitExceeded',
        });
        expect(Object.keys(tooMany.headers).sort(), where).toEqual(['Retry-After', ...rateLimitHeaders].sort());
        const success = Object.keys(operation.responses).find((status) => status.startsWith('2'))!;
        expect(Object.keys(operation.responses[success].headers), where).toEqual(
          expect.arrayContaining(rateLimitHeaders),
        );
      }
    }
    expect(document.components.schemas.RateLimitExceeded).toMatchObject({
      required: ['object', 'type', 'message', 'retry_after'],
      properties: {
        object: { const: 'error' },
        type: { const: 'rate_limit_exceeded' },
        retry_after: { type: 'integer' },
      },
    });
  });

  it('leaves the public routes open: the document itself, the error page, the callbacks and the media files', () => {
    for (const [path, method] of [
      ['/api/v1/openapi.json', 'get'],
      ['/docs/errors', 'get'],
      ['/callbacks/{platform}/deauthorize', 'post'],
      ['/media/{file}', 'get'],
    ] as const) {
      expect(document.paths[path][method].security, path).toEqual([]);
    }
  });

  it('takes an Idempotency-Key on every authenticated POST and says when an answer is a replay', () => {
    const posts = Object.entries(document.paths as Record<string, any>).filter(
      // Public POSTs (the platform callbacks, OAuth client registration) run no operation and keep no replay.
      ([, item]) => item.post && item.post.security === undefined,
    );
    expect(posts.length).toBeGreaterThanOrEqual(8);
    for (const [path, item] of posts) {
      expect(item.post.parameters, path).toContainEqual({ $ref: '#/components/parameters/Idempotency-Key' });
      const success = Object.keys(item.post.responses).find((status) => status.startsWith('2'))!;
      expect(item.post.responses[success].headers['Idempotent-Replayed'], path).toBeDefined();
    }
  });

  it("writes request parameters and bodies from the operations' input schemas", () => {
    const list = document.paths['/api/v1/content'].get;
    expect(list.parameters).toContainEqual(
      expect.objectContaining({ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } }),
    );
    const create = list && document.paths['/api/v1/content'].post.requestBody.content['application/json'].schema;
    expect(create.required).toEqual(['caption']);
    expect(create.properties.caption).toMatchObject({ type: 'string', minLength: 1, maxLength: 4000 });
    expect(create.properties.status).toMatchObject({
      default: 'draft',
      enum: ['draft', 'pending_review', 'approved', 'scheduled'],
    });
    const patch = document.paths['/api/v1/content/{id}'].patch;
    expect(patch.parameters).toContainEqual(expect.objectContaining({ name: 'id', in: 'path', required: true }));
    expect(patch.requestBody.content['application/json'].schema).toMatchObject({ minProperties: 1 });
    expect(patch.requestBody.content['application/json'].schema.properties).not.toHaveProperty('id');
    expect(document.paths['/api/v1/analytics/overview'].get.parameters).toContainEqual(
      expect.objectContaining({ name: 'days', schema: { type: 'integer', minimum: 1, maximum: 365, default: 30 } }),
    );
    expect(document.paths['/media_assets'].post.requestBody.content).toHaveProperty('multipart/form-data');
  });

  it('gives each error status the envelope, with the codes of that status the route can answer', () => {
    const publish = document.paths['/api/v1/content/{id}/publish'].post.responses;
    const codes = (status: string) =>
      publish[status].content['application/json'].schema.allOf[1].properties.error.properties.code.enum;
    expect(publish['202'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Content' });
    expect(publish['404'].content['application/json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Error' });
    expect(codes('409').sort()).toEqual(['idempotency_conflict', 'invalid_state']);
    expect(codes('422').sort()).toEqual(['idempotency_key_reused', 'no_target_platforms']);
    expect(codes('403').sort()).toEqual([
      'forbidden',
      'host_not_allowed',
      'insufficient_scope',
      'plan_forbidden',
      'quota_exceeded',
    ]);
    // GET /me answers whatever the plan: no 402 and no plan_forbidden.
    expect(Object.keys(document.paths['/api/v1/me'].get.responses)).not.toContain('402');
  });

  it('describes the social account with its live fields, and no token', () => {
    const account = document.components.schemas.SocialAccount;
    expect(account.properties.mode.enum).toEqual(['sandbox', 'live']);
    expect(account.properties.status.enum).toEqual(['active', 'needs_reconnect', 'disconnected']);
    expect(Object.keys(account.properties)).toEqual(
      expect.arrayContaining(['is_active', 'scopes', 'token_expires_at', 'reconnect_by', 'profile_url']),
    );
    expect(Object.keys(account.properties).filter((name) => /token(?!_expires_at)|lease/.test(name))).toEqual([]);
  });
});

describe('the response check of the REST tests', () => {
  const url = (path: string) => `http://127.0.0.1:1${path}`;
  const rateLimited = { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '299', 'x-ratelimit-reset': '1773144060' };
  const envelope = (code: string) => ({ error: { code, message: 'No.', docs_url: DOCS_URL } });

  it('passes an answer the document allows', async () => {
    const page = { object: 'list', data: [], has_more: false, next_cursor: null };
    expect(await nonConformance('GET', url('/api/v1/content?limit=5'), json(page, 200, rateLimited))).toBeUndefined();
    expect(await nonConformance('GET', url('/api/v1/nothing'), json(envelope('not_found'), 404))).toBeUndefined();
  });

  it('refuses a body that does not match the schema', async () => {
    const problem = await nonConformance(
      'GET',
      url('/api/v1/content'),
      json({ object: 'list', data: [], next_cursor: null }, 200, rateLimited),
    );
    expect(problem).toMatch(/does not match the OpenAPI document: .*has_more/);
    const extra = await nonConformance(
      'GET',
      url('/api/v1/content'),
      json({ object: 'list', data: [], has_more: false, next_cursor: null, total: 0 }, 200, rateLimited),
    );
    expect(extra).toMatch(/additional properties/);
  });

  it('refuses a status the route does not document, and an error code of another status', async () => {
    expect(await nonConformance('GET', url('/api/v1/me'), json(envelope('invalid_state'), 409))).toMatch(
      /does not list for GET \/api\/v1\/me/,
    );
    expect(await nonConformance('GET', url('/api/v1/content/abc'), json(envelope('invalid_state'), 404))).toMatch(
      /does not match/,
    );
  });

  it('refuses a 429 without Retry-After, and a success without the rate-limit headers', async () => {
    const body = { object: 'error', type: 'rate_limit_exceeded', message: 'Slow down.', retry_after: 12 };
    expect(await nonConformance('GET', url('/api/v1/me'), json(body, 429, rateLimited))).toMatch(/Retry-After/);
    expect(
      await nonConformance(
        'GET',
        url('/api/v1/webhooks'),
        json({ object: 'list', data: [], has_more: false, next_cursor: null }, 200),
      ),
    ).toMatch(/X-RateLimit-Limit/);
  });

  it('refuses anything but the 404 envelope on a path the document does not have, and the 405 on a method it does not list', async () => {
    expect(await nonConformance('GET', url('/api/v2/content'), json({}, 200))).toMatch(/not in the OpenAPI document/);
    expect(await nonConformance('PUT', url('/api/v1/content'), json(envelope('not_found'), 404))).toMatch(/has no PUT/);
    expect(
      await nonConformance('PUT', url('/api/v1/content'), json(envelope('method_not_allowed'), 405)),
    ).toBeUndefined();
  });
});
