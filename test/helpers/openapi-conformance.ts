import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { default as addFormats } from 'ajv-formats';
import { openApiDocument } from '../../src/rest/openapi.ts';

type Json = Record<string, any>;

/**
 * Checks an answer of the test server against the OpenAPI document: the status must be documented for
 * the method and path, the required headers present, and a JSON body must match its schema. A path
 * the document does not have must answer the 404 envelope, a method it does not list the 405 one.
 */
export const document: Json = openApiDocument({
  publicBaseUrl: 'http://conformance.test',
  docsUrl: 'http://conformance.test/docs/errors',
});

/** /mcp speaks MCP (its suites check it); /metrics is the operators' Prometheus text; /app is the people's HTML dashboard: not the API. */
export const OUTSIDE_THE_DOCUMENT = /^\/(mcp|metrics|app)(\/|$)/;

const COMPONENTS = 'https://conformance.test/components';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
/** The document's references point into its components; here the components are one schema's $defs. */
const withRefsTo = (target: string, schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${target}#/$defs/`));
ajv.addSchema({ $id: COMPONENTS, $defs: withRefsTo('', document.components.schemas) });
const resolved = (schema: unknown): unknown => withRefsTo(COMPONENTS, schema);

const validators = new WeakMap<object, ValidateFunction>();
function validatorFor(schema: Json): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(resolved(schema) as Json);
    validators.set(schema, validate);
  }
  return validate;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ROUTES = Object.entries(document.paths as Record<string, Json>).map(([path, item]) => ({
  path,
  item,
  pattern: new RegExp(
    `^${path
      .split(/\{[^}]+\}/)
      .map(escapeRegExp)
      .join('[^/]+')}/?$`,
    'i',
  ),
}));

const envelope = (code: string) => ({
  description: code,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['error'],
        additionalProperties: false,
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message', 'docs_url'],
            additionalProperties: false,
            properties: {
              code: { const: code },
              message: { type: 'string', minLength: 1 },
              docs_url: { type: 'string', format: 'uri' },
            },
          },
        },
      },
    },
  },
});

const UNKNOWN_ROUTE = envelope('not_found');
const WRONG_METHOD = envelope('method_not_allowed');

const refTarget = (value: Json): Json => {
  if (typeof value.$ref !== 'string') return value;
  const [, group, name] = /^#\/components\/(\w+)\/(.+)$/.exec(value.$ref)!;
  return document.components[group!][name!];
};

/** Returns why the answer breaks the document, or undefined when it conforms. */
export async function nonConformance(method: string, url: string, res: Response): Promise<string | undefined> {
  const { pathname } = new URL(url);
  if (OUTSIDE_THE_DOCUMENT.test(pathname)) return undefined;
  const where = `${method} ${pathname} answered ${res.status}`;
  const route = ROUTES.find((r) => r.pattern.test(pathname));
  const operation: Json | undefined =
    route && (route.item[method.toLowerCase()] ?? (method === 'HEAD' ? route.item.get : undefined));

  let documented: Json | undefined;
  if (!route) {
    if (res.status !== 404)
      return `${where}, but the path is not in the OpenAPI document (only a 404 envelope may answer it)`;
    documented = UNKNOWN_ROUTE;
  } else if (!operation) {
    if (res.status !== 405)
      return `${where}, but ${route.path} has no ${method} in the OpenAPI document (only a 405 envelope may answer it)`;
    documented = WRONG_METHOD;
  } else {
    documented = operation.responses[String(res.status)];
    if (!documented) {
      return `${where}, which the OpenAPI document does not list for ${method} ${route.path} (it lists ${Object.keys(operation.responses).join(', ')})`;
    }
  }

  for (const [name, header] of Object.entries((documented.headers ?? {}) as Record<string, Json>)) {
    if (refTarget(header).required && !res.headers.has(name))
      return `${where} without the ${name} header the OpenAPI document requires`;
  }

  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const content = documented.content as Record<string, Json> | undefined;
  if (!content || method === 'HEAD') return undefined;
  const media = content[type] ?? content['*/*'];
  if (!media)
    return `${where} with Content-Type ${type || '(none)'}; the OpenAPI document gives ${Object.keys(content).join(', ')}`;
  if (type !== 'application/json' || !media.schema) return undefined;

  const text = await res.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${where} with a body that is not JSON: ${text.slice(0, 200)}`;
  }
  const validate = validatorFor(media.schema);
  if (validate(body)) return undefined;
  const problems = (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  return `${where} with a body that does not match the OpenAPI document: ${problems.join('; ')}; body: ${text.slice(0, 500)}`;
}
