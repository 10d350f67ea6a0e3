/**
 * The JSON Schemas of tools/list, written for a model's context: every conversation pays for them
 * before its first word. The same constraints, said once and in fewer characters:
 * - no `$schema`: 2020-12 is MCP's default dialect;
 * - no `pattern` beside a `format` (zod writes both for date-times and UUIDs; the format says it);
 * - no bounds on an integer that only say it is a safe integer (zod writes them for every `.int()`);
 * - no `type: "string"` beside an enum or const of strings;
 * - a nullable value as `type: [T, "null"]` rather than `anyOf` with a null branch;
 * - a shape that repeats within one schema written once under `$defs` and referenced;
 * - no description that only repeats its property's name;
 * - an output schema that gives the answer's shape (types, nullability, enums), without prose (the
 *   tool's description tells what the answer means), annotations or closed-object bookkeeping, and
 *   without an enum the tool's input schema already lists.
 * The validation itself stays with the operation's zod schema, which every call goes through.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords that a `null` instance would fail, so a schema holding one cannot absorb a null branch. */
const NULL_REFUSING = ['enum', 'const', '$ref', 'anyOf', 'oneOf', 'allOf', 'not'];

function tidy(node: Json): Json {
  let out = node;
  if (typeof node.format === 'string' && 'pattern' in node) {
    const { pattern: _implied, ...rest } = node;
    out = rest;
  }
  if (out.type === 'integer' && out.maximum === Number.MAX_SAFE_INTEGER) {
    const { maximum: _max, ...rest } = out;
    out = rest;
  }
  if (out.type === 'integer' && out.minimum === Number.MIN_SAFE_INTEGER) {
    const { minimum: _min, ...rest } = out;
    out = rest;
  }
  // An enum or const of strings already says the type.
  const values = Array.isArray(out.enum) ? out.enum : 'const' in out ? [out.const] : undefined;
  if (out.type === 'string' && values?.every((value) => typeof value === 'string')) {
    const { type: _implied, ...rest } = out;
    out = rest;
  }
  const { anyOf } = out;
  if (Array.isArray(anyOf) && anyOf.length === 2 && isObject(anyOf[0]) && isObject(anyOf[1])) {
    const [value, nullBranch] = anyOf as [Json, Json];
    const isNull = Object.keys(nullBranch).length === 1 && nullBranch.type === 'null';
    if (isNull && typeof value.type === 'string' && !NULL_REFUSING.some((key) => key in value)) {
      const { anyOf: _anyOf, ...outer } = out;
      if (!Object.keys(outer).some((key) => key in value)) return { ...value, ...outer, type: [value.type, 'null'] };
    }
  }
  return out;
}

/** Applies `visit` bottom-up to every subschema (values of objects and arrays). */
function walk(value: unknown, visit: (node: Json) => Json): unknown {
  if (Array.isArray(value)) return value.map((item) => walk(item, visit));
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) out[key] = walk(child, visit);
  return visit(out);
}

/** Schema keywords holding subschemas: a shared shape is named after the property above them. */
const KEYWORDS = new Set(['properties', 'items', 'additionalProperties', 'propertyNames', 'anyOf', 'oneOf', 'allOf']);

/** A `$defs` entry is worth its reference only for a shape at least this long that occurs twice. */
const MIN_SHARED_CHARS = 80;

/**
 * Moves every subschema of at least MIN_SHARED_CHARS characters that occurs more than once into
 * `$defs`, named after the property that first holds it, largest first (so a shared object is
 * shared whole, not piece by piece).
 */
function shareRepeats(root: Json): Json {
  const defs: Json = isObject(root.$defs) ? { ...root.$defs } : {};
  const { $defs: _defs, ...body } = root;
  let document: Json = body;
  const taken = new Set(Object.keys(defs));
  for (;;) {
    const seen = new Map<string, { count: number; name: string }>();
    const count = (value: unknown, name: string) => {
      if (Array.isArray(value)) return value.forEach((item) => count(item, name));
      if (!isObject(value)) return;
      const text = JSON.stringify(value);
      if (text.length >= MIN_SHARED_CHARS) {
        const entry = seen.get(text);
        if (entry) entry.count += 1;
        else seen.set(text, { count: 1, name });
      }
      for (const [key, child] of Object.entries(value)) count(child, KEYWORDS.has(key) ? name : key);
    };
    count(document, 'shape');
    count(defs, 'shape');
    const repeated = [...seen.entries()]
      .filter(([, entry]) => entry.count > 1)
      .sort(([a], [b]) => b.length - a.length)[0];
    if (!repeated) break;
    const [text, { name: wanted }] = repeated;
    let name = wanted.replace(/[^A-Za-z0-9_]/g, '_');
    for (let n = 2; taken.has(name); n += 1) name = `${wanted}_${n}`;
    taken.add(name);
    const ref = { $ref: `#/$defs/${name}` };
    const replace = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(replace);
      if (!isObject(value)) return value;
      if (JSON.stringify(value) === text) return ref;
      const out: Json = {};
      for (const [key, child] of Object.entries(value)) out[key] = replace(child);
      return out;
    };
    document = replace(document) as Json;
    for (const key of Object.keys(defs)) defs[key] = replace(defs[key]);
    defs[name] = JSON.parse(text) as unknown;
  }
  return Object.keys(defs).length > 0 ? { ...document, $defs: defs } : document;
}

/** A description that only repeats its property's name ("Industry." for industry) says nothing. */
function withoutEchoes(node: Json): Json {
  if (!isObject(node.properties)) return node;
  const words = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
  const properties: Json = {};
  for (const [name, property] of Object.entries(node.properties)) {
    if (isObject(property) && typeof property.description === 'string' && words(property.description) === words(name)) {
      const { description: _echo, ...rest } = property;
      properties[name] = rest;
    } else properties[name] = property;
  }
  return { ...node, properties };
}

/** The lean form of a tool's input schema. */
export function leanInputSchema(schema: Json): Json {
  const { $schema: _dialect, ...rest } = schema;
  return shareRepeats(walk(rest, (node) => withoutEchoes(tidy(node))) as Json);
}

/**
 * An output object left open: no `additionalProperties: false` and no `required` list. An answer
 * gains fields over time (a client may hold a listing for ttlMs), and a model reads which fields
 * there are from `properties`; nullability stays in each field's type.
 */
function openObject(node: Json): Json {
  const { additionalProperties, required: _present, ...rest } = node;
  return additionalProperties === false || additionalProperties === undefined
    ? rest
    : { ...rest, additionalProperties };
}

/** Drops every description: an answer's meaning is told once, in the tool's description. */
function undescribed(node: Json): Json {
  const { description: _said, ...rest } = node;
  return rest;
}

/**
 * Drops `format` (in 2020-12 an annotation, not asserted by validators) and a `propertyNames` that
 * only says keys are strings (JSON keys always are): an answer's ids and times are plain from their names.
 */
function unannotated(node: Json): Json {
  const { format: _annotation, propertyNames, ...rest } = node;
  const stringKeys =
    isObject(propertyNames) && Object.keys(propertyNames).length === 1 && propertyNames.type === 'string';
  return propertyNames === undefined || stringKeys ? rest : { ...rest, propertyNames };
}

/** The enums (as JSON) that a schema lists anywhere. */
function enumsOf(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) enumsOf(item, into);
  if (!isObject(schema)) return into;
  if (Array.isArray(schema.enum)) into.add(JSON.stringify(schema.enum));
  for (const child of Object.values(schema)) enumsOf(child, into);
  return into;
}

/** Puts a `$defs` entry referenced only once back where it is referenced. */
function inlineSingleUse(root: Json): Json {
  if (!isObject(root.$defs)) return root;
  const defs = { ...root.$defs };
  const text = JSON.stringify(root);
  for (const name of Object.keys(defs)) {
    const ref = JSON.stringify({ $ref: `#/$defs/${name}` });
    if (text.split(ref).length - 1 !== 1) continue;
    const body = defs[name];
    delete defs[name];
    const replace = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(replace);
      if (!isObject(value)) return value;
      if (value.$ref === `#/$defs/${name}` && Object.keys(value).length === 1) return body;
      const out: Json = {};
      for (const [key, child] of Object.entries(value)) out[key] = replace(child);
      return out;
    };
    const { $defs: _old, ...document } = replace({ ...root, $defs: defs }) as Json;
    root = Object.keys(defs).length > 0 ? { ...document, $defs: replace(defs) } : document;
  }
  return root;
}

/**
 * The lean form of a tool's output schema, given the tool's input schema: the shape of
 * structuredContent (types, nullability, enums), without prose, annotations or closed-object
 * bookkeeping, and without an enum the input already lists.
 */
export function leanOutputSchema(schema: Json, input: Json): Json {
  const { $schema: _dialect, ...rest } = schema;
  const inputEnums = enumsOf(input);
  const saidOnce = (node: Json): Json => {
    if (!Array.isArray(node.enum) || !inputEnums.has(JSON.stringify(node.enum))) return node;
    const { enum: _listed, ...others } = node;
    return { type: 'string', ...others };
  };
  const shaped = walk(rest, (node) => openObject(unannotated(undescribed(tidy(saidOnce(node)))))) as Json;
  return shareRepeats(inlineSingleUse(shaped));
}
