import fc from 'fast-check';
import { z } from 'zod';
import type { Operation } from '../../src/core/operation.ts';
import { DATE_STRINGS, hugeString, longString, nastyString, oddValue } from './values.ts';

/** The part of a JSON schema the generators read. */
export interface FieldSchema {
  type?: string;
  enum?: unknown[];
  anyOf?: FieldSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  items?: FieldSchema;
  format?: string;
  pattern?: string;
  properties?: Record<string, FieldSchema>;
}

/** An operation's input as JSON schema, exactly as the MCP door advertises it (src/mcp/server.ts). */
export function inputFields(operation: Operation): Record<string, FieldSchema> {
  const schema = z.toJSONSchema(operation.input, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, FieldSchema>;
  };
  return schema.properties ?? {};
}

/** A sample of a valid item for an array of `items`, distinct per index (so a list at its limit stays valid). */
function itemSample(items: FieldSchema | undefined, index: number): unknown {
  if (items?.enum) return items.enum[index % items.enum.length];
  if (items?.format === 'uri') return `https://cdn.example.test/${index}.png`;
  if (items?.type === 'number' || items?.type === 'integer') return index;
  return `item${index}`;
}

/**
 * The values at and just past every limit the schema states for one field: string lengths, integer
 * ranges, list sizes, enum spellings, date-times and URLs.
 */
export function boundaryValues(field: FieldSchema): unknown[] {
  const branches = field.anyOf ? field.anyOf.filter((b) => b.type !== 'null') : [field];
  const values: unknown[] = field.anyOf?.some((b) => b.type === 'null') ? [null] : [];
  for (const branch of branches) {
    if (branch.enum) {
      for (const option of branch.enum) values.push(option, String(option).toUpperCase(), ` ${String(option)}`);
    }
    if (branch.type === 'string') {
      const min = branch.minLength ?? 0;
      if (min > 0) values.push('x'.repeat(min - 1), 'x'.repeat(min));
      if (branch.maxLength !== undefined) {
        const max = branch.maxLength;
        values.push(
          'x'.repeat(max),
          'x'.repeat(max + 1),
          'é'.repeat(max),
          'é'.repeat(max + 1),
          '😀'.repeat(Math.ceil(max / 2)),
          '😀'.repeat(max),
        );
      }
      if (branch.format === 'uri') {
        values.push(
          'https://cdn.example.test/a.png',
          'http://[::1]/x',
          'javascript:alert(1)',
          'ftp://example.test/x',
          '//example.test/x',
          'https://',
          'https://exa mple.test/',
          `https://e.test/${'a'.repeat(2100)}`,
        );
      }
      if (branch.format === 'date-time') values.push(...DATE_STRINGS);
      if (branch.pattern) values.push('twitter', 'Twitter', 'a'.repeat(33), '16:9', '16:', '#fff', '#ffff', '#GGGGGG');
    }
    if (branch.type === 'integer' || branch.type === 'number') {
      const { minimum: min, maximum: max } = branch;
      if (min !== undefined) values.push(min - 1, min, min + 0.5);
      if (max !== undefined) values.push(max, max + 1, max - 0.5);
      values.push(-0, 1e308, -1e308, 2 ** 53 + 2, '5', '1e2', ' 7 ', '');
    }
    if (branch.type === 'array') {
      const max = branch.maxItems;
      if (max !== undefined) {
        values.push(Array.from({ length: max }, (_, i) => itemSample(branch.items, i)));
        values.push(Array.from({ length: max + 1 }, (_, i) => itemSample(branch.items, i)));
      }
      values.push(
        [],
        [itemSample(branch.items, 0), itemSample(branch.items, 0)],
        [null],
        [[]],
        [{}],
        Array.from({ length: 1000 }, (_, i) => itemSample(branch.items, i)),
      );
    }
    if (branch.type === 'object') {
      values.push(
        {},
        Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i])),
        { twitter: { caption: '' } },
        { twitter: { unknown: 1 } },
        { Twitter: {} },
        { ugc: -1 },
        { ugc: 0 },
        { carousel: 1e308 },
      );
    }
  }
  return values;
}

export interface Mutated {
  /** The body or arguments to send; a string is sent as raw text. */
  value: unknown;
  /** What was done to the valid value, for the counterexample and the per-kind tallies. */
  mutation: string;
  /** Over the body limit once encoded: the request must answer 413. */
  oversized?: boolean;
}

/**
 * A valid object mutated the ways the issue lists: fields dropped, extra fields, wrong types,
 * values at and past each limit, hostile strings, huge strings. `fields` is the operation's schema.
 */
export function mutatedObject(
  valid: fc.Arbitrary<Record<string, unknown>>,
  fields: Record<string, FieldSchema>,
): fc.Arbitrary<Mutated> {
  const names = Object.keys(fields);
  const field = names.length > 0 ? fc.constantFrom(...names) : fc.constant('caption');
  // Computed once per field, not per generated value: some are long strings and long lists.
  const limits = new Map(names.map((name) => [name, boundaryValues(fields[name])]));
  const boundary = field.chain((name) => {
    const values = limits.get(name) ?? [];
    return values.length > 0
      ? fc.tuple(fc.constant(name), fc.constantFrom(...values))
      : fc.tuple(fc.constant(name), oddValue);
  });
  const set =
    (name: string, value: unknown, mutation: string) =>
    (body: Record<string, unknown>): Mutated => ({ value: { ...body, [name]: value }, mutation });
  return fc.oneof(
    { weight: 5, arbitrary: valid.map((value) => ({ value, mutation: 'valid' })) },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, fc.nat()).map(([body, n]) => {
        const keys = Object.keys(body);
        if (keys.length === 0) return { value: body, mutation: 'valid' };
        const { [keys[n % keys.length]]: _dropped, ...rest } = body;
        return { value: rest, mutation: `drop ${keys[n % keys.length]}` };
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          valid,
          fc.oneof(
            fc.constantFrom(
              'id',
              'workspace_id',
              'object',
              'created_at',
              'deleted',
              'signing_secret',
              'published_at',
              'campaign_id',
              'generated_posts',
            ),
            nastyString,
          ),
          oddValue,
        )
        .map(([body, key, value]) => ({ value: { ...body, [key]: value }, mutation: `extra ${JSON.stringify(key)}` })),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(valid, field, oddValue)
        .map(([body, name, value]) => set(name, value, `wrong type ${name}`)(body)),
    },
    {
      weight: 5,
      arbitrary: fc.tuple(valid, boundary).map(([body, [name, value]]) => set(name, value, `limit ${name}`)(body)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, field, fc.oneof(nastyString, longString))
        .map(([body, name, value]) => set(name, value, `hostile string ${name}`)(body)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, field, hugeString)
        .map(([body, name, huge]) => ({ value: { ...body, [name]: huge }, mutation: `huge ${name}`, oversized: true })),
    },
  );
}
