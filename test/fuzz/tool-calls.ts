import fc from 'fast-check';
import type { ToolDescriptor } from '../../tools/index.ts';
import { inputFields, mutatedObject } from './mutations.ts';
import { printableCall, type FuzzToolCall } from './oracle.ts';
import { OPERATION_ENDPOINTS } from './rest-requests.ts';
import { BAD_PATH_SEGMENTS, longString, nastyString, oddValue } from './values.ts';
import type { World } from './world.ts';

type Client = FuzzToolCall['client'];

/** The tool error each failing key must get; get_account answers a past-due or API-less workspace. */
function clientChoice(tool: ToolDescriptor): fc.Arbitrary<{ client: Client; expectedCode?: string }> {
  const planChecks = tool.operation.planChecks ?? true;
  return fc.oneof(
    { weight: 20, arbitrary: fc.constant({ client: 'a' as const }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<{ client: Client; expectedCode?: string }>(
        { client: 'none', expectedCode: 'missing_key' },
        { client: 'revoked', expectedCode: 'invalid_key' },
        { client: 'expired', expectedCode: 'expired_key' },
        { client: 'pastDue', expectedCode: planChecks ? 'payment_required' : undefined },
        { client: 'freePlan', expectedCode: planChecks ? 'plan_forbidden' : undefined },
      ),
    },
  );
}

/** Tool arguments are typed JSON: a decimal query value becomes the number an assistant would send. */
const typed = (value: string): unknown => (/^\d+$/.test(value) ? Number(value) : value);

/**
 * Calls to one tool: the valid arguments of its REST twin (the same operation), mutated the same
 * ways, with ids of A (most), of B (must be not_found) and hostile ones; plus arguments that are no
 * object at all, which the protocol itself refuses.
 */
export function toolCalls(world: World, tool: ToolDescriptor): fc.Arbitrary<FuzzToolCall> {
  const twin = OPERATION_ENDPOINTS.find((endpoint) => endpoint.operation === tool.operation);
  if (!twin) throw new Error(`no REST endpoint runs the operation of ${tool.name}`);
  const fields = inputFields(tool.operation);
  const query = twin.query?.(world);
  const base: fc.Arbitrary<Record<string, unknown>> = twin.valid
    ? twin.valid(world)
    : query
      ? fc.record(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v.map(typed)])), { requiredKeys: [] })
      : fc.constant({});
  const kind = twin.idKind;
  const id = kind
    ? fc.oneof(
        { weight: 12, arbitrary: fc.constantFrom(...world.ids.a[kind]).map((value) => ({ value, foreign: false })) },
        { weight: 4, arbitrary: fc.constantFrom(...world.ids.b[kind]).map((value) => ({ value, foreign: true })) },
        { weight: 1, arbitrary: fc.uuid({ version: 7 }).map((value) => ({ value, foreign: false })) },
        {
          weight: 2,
          arbitrary: fc
            .oneof(nastyString, longString, fc.constantFrom(...BAD_PATH_SEGMENTS))
            .map((value) => ({ value, foreign: false })),
        },
      )
    : fc.constant(undefined);
  const valid = fc
    .tuple(base, id)
    .map(([args, chosen]) => (chosen ? { ...args, id: chosen.value, [FOREIGN]: chosen.foreign } : args));
  const args = fc.oneof(
    { weight: 30, arbitrary: mutatedObject(valid, fields) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(33, 100_000))
        .map(([body, depth]) => ({ value: { ...body, x: nested(depth) }, mutation: `nested ${depth} deep` })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          oddValue.filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)),
          fc.constant(undefined),
        )
        .map((value) => ({ value, mutation: 'arguments not an object' })),
    },
  );
  return fc.record({ who: clientChoice(tool), args }).map(({ who, args }) => {
    const value = args.value as Record<string | symbol, unknown> | undefined;
    const foreign = typeof value === 'object' && value !== null && value[FOREIGN] === true;
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    let expectedCode = isObject || value === undefined ? who.expectedCode : undefined;
    if (expectedCode === undefined && who.client === 'a' && foreign && args.mutation === 'valid')
      expectedCode = 'not_found';
    const sent = isObject ? Object.fromEntries(Object.entries(value)) : value;
    return printableCall({ tool: tool.name, client: who.client, args: sent, mutation: args.mutation, expectedCode });
  });
}

/** An array nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

/** Marks arguments built around another workspace's id; a symbol, so it is never sent. */
const FOREIGN = Symbol('foreign id');
