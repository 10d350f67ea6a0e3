import { requiredRole } from '../core/people/roles.ts';
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import type { Config } from '../core/config.ts';
import type { Runtime } from '../core/context.ts';
import { ERROR_CATALOGUE, ErrorBody, RateLimitBody, type ErrorCode } from '../core/errors.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../core/idempotency.ts';
import { operationErrorCodes } from '../core/operation.ts';
import { publicEndpoint, routerFor, type Endpoint, type OperationEndpoint, type PublicEndpoint } from './endpoints.ts';
import { ERROR_STATUS } from '../http/errors.ts';
import { PROBE_PATHS } from '../http/host-check.ts';
import { accountEndpoints } from './routes/account.ts';
import { analyticsEndpoints } from './routes/analytics.ts';
import { brandProfileEndpoints } from './routes/brand-profile.ts';
import { callbackEndpoints } from './routes/callbacks.ts';
import { campaignEndpoints } from './routes/campaigns.ts';
import { contentEndpoints } from './routes/content.ts';
import { mediaEndpoints } from './routes/media.ts';
import { oauthEndpoints } from './routes/oauth.ts';
import { oauthFlowEndpoints } from './routes/oauth-flow.ts';
import { socialAccountEndpoints } from './routes/social-accounts.ts';
import { systemEndpoints } from './routes/system.ts';
import { templateEndpoints } from './routes/templates.ts';
import { webhookEndpoints } from './routes/webhooks.ts';

const OPENAPI_PATH = '/api/v1/openapi.json';

/**
 * GET /api/v1/openapi.json, public like any published API description: it holds no workspace data,
 * and clients generate code from it before they have a key.
 */
const openApiEndpoints = [
  publicEndpoint({
    method: 'get',
    path: OPENAPI_PATH,
    summary: 'This OpenAPI document',
    description: 'Public: no key needed.',
    handlers: (runtime) => {
      // Built on first request (it takes a while), then kept: the routes do not change while running.
      let document: Json | undefined;
      return [((_req, res) => void res.json((document ??= openApiDocument(runtime.config)))) satisfies RequestHandler];
    },
    responses: { 200: { description: 'The OpenAPI 3.1 document.', mediaType: 'application/json' } },
    errors: [],
    answersWithoutDatabase: true,
  }),
];

/**
 * Every route of the HTTP surface: each route file's rows, where app.ts mounts its router, and the
 * tag that groups them in the document. test/rest/openapi.test.ts walks the Express app to check
 * that app.ts mounts the same. /mcp is not here: it speaks MCP (tools/list describes it), not REST.
 */
export const API_SURFACE: ReadonlyArray<{ mount: string; tag: string; endpoints: readonly Endpoint[] }> = [
  { mount: '/api/v1', tag: 'Content', endpoints: contentEndpoints },
  { mount: '/api/v1', tag: 'Campaigns', endpoints: campaignEndpoints },
  { mount: '/api/v1', tag: 'Account', endpoints: accountEndpoints },
  { mount: '/api/v1', tag: 'Brand profile', endpoints: brandProfileEndpoints },
  { mount: '/api/v1', tag: 'Social accounts', endpoints: socialAccountEndpoints },
  { mount: '', tag: 'Media', endpoints: mediaEndpoints },
  { mount: '/api/v1', tag: 'Templates', endpoints: templateEndpoints },
  { mount: '/api/v1', tag: 'Analytics', endpoints: analyticsEndpoints },
  { mount: '/api/v1', tag: 'Webhooks', endpoints: webhookEndpoints },
  { mount: '', tag: 'Platform callbacks', endpoints: callbackEndpoints },
  { mount: '', tag: 'OAuth for /mcp', endpoints: oauthEndpoints },
  { mount: '', tag: 'OAuth for /mcp', endpoints: oauthFlowEndpoints },
  { mount: '', tag: 'System', endpoints: [...systemEndpoints, ...openApiEndpoints] },
];

/** Mounted at the root by app.ts. */
export const openApiRoutes = (runtime: Runtime): Router => routerFor(runtime, openApiEndpoints);

type Json = Record<string, unknown>;

/** Express `/content/:id` as OpenAPI `/content/{id}`. */
const openApiPath = (expressPath: string): string => expressPath.replace(/:(\w+)/g, '{$1}');
const pathParameterNames = (expressPath: string): string[] => [...expressPath.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/**
 * zod to JSON Schema 2020-12 (the dialect of OpenAPI 3.1). Schemas named with `.meta({ id })` in the
 * core become components, referenced wherever they appear.
 */
class SchemaWriter {
  readonly components: Record<string, Json> = {};

  private readonly written = { input: new Map<z.ZodType, Json>(), output: new Map<z.ZodType, Json>() };

  write(schema: z.ZodType, io: 'input' | 'output'): Json {
    let json = this.written[io].get(schema);
    if (!json) {
      json = this.convert(schema, io);
      this.written[io].set(schema, json);
    }
    return json;
  }

  private convert(schema: z.ZodType, io: 'input' | 'output'): Json {
    // Inputs: a transform's input side is what the client sends (a cursor string, a days number);
    // pagination and analytics declare it with meta, anything else unrepresentable stays open.
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    for (const [id, def] of Object.entries(defs)) {
      const written = rewriteRefs(def) as Json;
      const existing = this.components[id];
      if (existing && JSON.stringify(existing) !== JSON.stringify(written))
        throw new Error(`Two different schemas are named ${id}.`);
      this.components[id] = written;
    }
    return rewriteRefs(json) as Json;
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string'
        ? inner.replace(/^#\/\$defs\//, '#/components/schemas/')
        : rewriteRefs(inner),
    ]),
  );
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

const integerHeader = (description: string) => ({
  description,
  required: true,
  schema: { type: 'integer', minimum: 0 },
});

const COMPONENT_HEADERS = {
  'X-RateLimit-Limit': integerHeader(
    'Requests per minute of the bucket with the least left that this request took from.',
  ),
  'X-RateLimit-Remaining': integerHeader('Requests left in that bucket in this window.'),
  'X-RateLimit-Reset': integerHeader('Unix seconds at which the window rolls over.'),
  'Retry-After': integerHeader('Seconds to wait before retrying.'),
  'Idempotent-Replayed': {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', const: 'true' },
  },
};

/** Every code a request to this route can be answered with: its own (the operation's, or the public row's) and those of its kind. */
function errorCodesOf(endpoint: Endpoint): Set<ErrorCode> {
  // A Host the service does not answer to is refused before any route but the health probe (host-check.ts).
  const hostRefusal: ErrorCode[] = PROBE_PATHS.has(endpoint.path) ? [] : ['host_not_allowed'];
  if (endpoint.kind === 'public') {
    const unavailable: ErrorCode[] = endpoint.answersWithoutDatabase ? [] : ['service_unavailable'];
    return new Set<ErrorCode>([...endpoint.errors, ...hostRefusal, ...unavailable, 'internal']);
  }
  const codes = new Set<ErrorCode>([
    ...operationErrorCodes(endpoint.operation),
    ...hostRefusal,
    'service_unavailable',
    'internal',
  ]);
  // Authentication checks run in order: header, key, expiry, subscription, plan; GET /me skips the plan checks.
  for (const code of [
    'missing_key',
    'invalid_key',
    'expired_key',
    'insufficient_scope',
    'rate_limit_exceeded',
  ] as const)
    codes.add(code);
  // A person's token answers 403 forbidden where their role may fall short: every route beyond a viewer's.
  if (requiredRole(endpoint.operation) !== 'viewer') codes.add('forbidden');
  if (endpoint.operation.planChecks !== false) {
    codes.add('payment_required');
    codes.add('plan_forbidden');
  }
  // Every operation route reads a body when one is sent (JSON, or the upload's multipart).
  for (const code of ['invalid_body', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(code);
  if (pathParameterNames(endpoint.path).length > 0) codes.add('not_found');
  if (endpoint.method === 'post') {
    codes.add('idempotency_conflict');
    codes.add('idempotency_key_reused');
  }
  return codes;
}

function errorResponses(endpoint: Endpoint, writer: SchemaWriter): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(endpoint)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = codes.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].meaning}`).join(' ');
    if (status === ERROR_STATUS.rate_limit_exceeded) {
      responses[status] = {
        description: `${description} The body is not the error envelope.`,
        headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...RATE_LIMIT_HEADERS },
        content: { 'application/json': { schema: writer.write(RateLimitBody, 'output') } },
      };
      continue;
    }
    // The envelope, with `code` narrowed to what this route can answer with this status.
    const narrowed = { properties: { error: { properties: { code: { enum: codes } } } } };
    responses[status] = {
      description,
      ...(status === ERROR_STATUS.service_unavailable
        ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } }
        : {}),
      content: { 'application/json': { schema: { allOf: [writer.write(ErrorBody, 'output'), narrowed] } } },
    };
  }
  return responses;
}

/** Path parameters from the operation's input schema (an id), query parameters from the rest of it. */
function operationParameters(endpoint: OperationEndpoint, fullPath: string, writer: SchemaWriter): Json[] {
  const input = writer.write(endpoint.operation.input, 'input');
  const properties = (input.properties ?? {}) as Record<string, Json>;
  const required = new Set((input.required ?? []) as string[]);
  const parameter = (name: string, where: 'path' | 'query'): Json => {
    const { description, ...schema } = properties[name] ?? { type: 'string' };
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema,
    };
  };
  const pathNames = pathParameterNames(fullPath);
  const parameters = pathNames.map((name) => parameter(name, 'path'));
  if (endpoint.input === 'query') {
    for (const name of Object.keys(properties))
      if (!pathNames.includes(name)) parameters.push(parameter(name, 'query'));
  }
  if (endpoint.method === 'post') parameters.push({ $ref: '#/components/parameters/Idempotency-Key' });
  return parameters;
}

/** The JSON body: the operation's input schema without the path parameters. */
function operationRequestBody(endpoint: OperationEndpoint, fullPath: string, writer: SchemaWriter): Json | undefined {
  if (endpoint.upload) return endpoint.upload.requestBody;
  if (endpoint.input !== 'body') return undefined;
  const pathNames = new Set(pathParameterNames(fullPath));
  const schema = writer.write(endpoint.operation.input, 'input');
  const properties = Object.fromEntries(
    Object.entries((schema.properties ?? {}) as Json).filter(([name]) => !pathNames.has(name)),
  );
  const required = ((schema.required ?? []) as string[]).filter((name) => !pathNames.has(name));
  const body: Json = { ...schema, properties };
  delete body.required;
  if (required.length > 0) body.required = required;
  // A PATCH without a field it knows is no_updates.
  if (endpoint.method === 'patch') body.minProperties = 1;
  return {
    required: required.length > 0 || endpoint.method === 'patch',
    content: { 'application/json': { schema: body } },
  };
}

const SUCCESS: Record<number, string> = {
  200: 'OK.',
  201: 'Created.',
  202: 'Accepted: the work goes on in the background.',
};

function operationObject(endpoint: OperationEndpoint, fullPath: string, writer: SchemaWriter): Json {
  const successHeaders =
    endpoint.method === 'post'
      ? { ...RATE_LIMIT_HEADERS, 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } }
      : RATE_LIMIT_HEADERS;
  const buckets = endpoint.operation.buckets.join(' and ');
  const requestBody = operationRequestBody(endpoint, fullPath, writer);
  return {
    summary: endpoint.summary,
    description: [endpoint.description, `Rate-limit buckets: ${buckets}.`].filter(Boolean).join(' '),
    parameters: operationParameters(endpoint, fullPath, writer),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [endpoint.status]: {
        description: SUCCESS[endpoint.status] ?? 'Success.',
        headers: successHeaders,
        content: { 'application/json': { schema: writer.write(endpoint.operation.output, 'output') } },
      },
      ...(endpoint.operation.dryRun && {
        200: {
          description: 'A dry run (dry_run true): what the call would do, with nothing changed.',
          headers: successHeaders,
          content: { 'application/json': { schema: writer.write(endpoint.operation.dryRun.output, 'output') } },
        },
      }),
      ...errorResponses(endpoint, writer),
    },
  };
}

function publicObject(endpoint: PublicEndpoint, writer: SchemaWriter): Json {
  const responses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(endpoint.responses)) {
    const content = response.json
      ? { 'application/json': { schema: writer.write(response.json, 'output') } }
      : response.mediaType
        ? { [response.mediaType]: {} }
        : undefined;
    responses[status] = { description: response.description, ...(content ? { content } : {}) };
  }
  return {
    summary: endpoint.summary,
    ...(endpoint.description ? { description: endpoint.description } : {}),
    security: [],
    parameters: (endpoint.parameters ?? []).map((parameter) => ({ ...parameter, required: parameter.in === 'path' })),
    ...(endpoint.requestBody ? { requestBody: endpoint.requestBody } : {}),
    responses: withErrorResponses(responses, errorResponses(endpoint, writer)),
  };
}

/**
 * A public route's own answers and its error envelopes; where both have a status (a page's 403 and
 * host_not_allowed), the status documents both bodies, one per Content-Type.
 */
function withErrorResponses(own: Record<string, Json>, errors: Record<string, Json>): Record<string, Json> {
  const responses = { ...own };
  for (const [status, error] of Object.entries(errors)) {
    const page = own[status];
    responses[status] = page
      ? {
          ...error,
          description: `${page.description} ${error.description}`,
          content: { ...(page.content as Json), ...(error.content as Json) },
        }
      : error;
  }
  return responses;
}

/** `/media/{file}` as `MediaFile`. */
const camelCase = (path: string): string =>
  path.replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase());

/** The OpenAPI 3.1 document of the whole HTTP surface, built from the route table. */
export function openApiDocument(config: Pick<Config, 'publicBaseUrl' | 'docsUrl'>): Json {
  const writer = new SchemaWriter();
  const paths: Record<string, Record<string, Json>> = {};
  const operationIds = new Set<string>();
  for (const { mount, tag, endpoints } of API_SURFACE) {
    for (const endpoint of endpoints) {
      const fullPath = mount + endpoint.path;
      const path = openApiPath(fullPath);
      const operation =
        endpoint.kind === 'operation' ? operationObject(endpoint, fullPath, writer) : publicObject(endpoint, writer);
      // An operation's id is its core name; a public route's is its method and path (getMediaFile).
      const baseId = endpoint.kind === 'operation' ? endpoint.operation.name : endpoint.method + camelCase(path);
      // An alias path (/brand_profile, /media_assets) runs the same operation: its id names the path too.
      const operationId = operationIds.has(baseId)
        ? `${baseId}_${fullPath.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`
        : baseId;
      operationIds.add(operationId);
      paths[path] = { ...paths[path], [endpoint.method]: { operationId, tags: [tag], ...operation } };
    }
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Content Publishing Service API',
      version: '1',
      description:
        'Draft, approve, schedule and publish social media content. Every /api/v1 request carries Authorization: Bearer <API key> ' +
        '(np_live_…) and is scoped to the key\'s workspace. Failures answer {"error":{"code","message","docs_url"}} (validation ' +
        `failures add details); the codes are listed at ${config.docsUrl}. Rate limits are per workspace and minute: a 429 answers ` +
        '{"object":"error","type":"rate_limit_exceeded","message","retry_after"} with Retry-After. Any POST accepts an ' +
        'Idempotency-Key: the same key and body within 24 hours replays the stored answer with Idempotent-Replayed: true. ' +
        'Lists are paged with limit (1 to 100, default 25) and the opaque next_cursor.',
    },
    externalDocs: { description: 'Error reference: every code, its meaning and what to do', url: config.docsUrl },
    servers: [{ url: config.publicBaseUrl }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key of the workspace, np_live_ followed by at least 32 characters.',
        },
      },
      parameters: {
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes a POST safe to retry: the same key and body within 24 hours replays the stored answer.',
          schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
        },
      },
      headers: COMPONENT_HEADERS,
      schemas: writer.components,
    },
  };
}
