import { asc, eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { content, events } from '../../db/schema/index.ts';
import type { Runtime } from '../../src/core/context.ts';

/** The base URL every test runtime of these suites is configured with, so docs_url is known in advance. */
export const BASE_URL = 'https://api.example.test';
export const DOCS_URL = `${BASE_URL}/docs/errors`;
export const baseEnv = { PUBLIC_BASE_URL: BASE_URL };

interface Reply {
  status: number;
  body: any;
}

/**
 * What is wrong with a failure body, as readable lines (none when it is right): one
 * top-level key `error` holding exactly code, message and docs_url, plus `details` with
 * `formErrors` and `fieldErrors` when `details` is true. `details: 'optional'` accepts either, for a
 * check that cannot know whether the failure came from the schema (invalid_body) or the JSON parser.
 */
export function errorEnvelopeProblems(body: unknown, options: { details?: boolean | 'optional' } = {}): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return [`the body is not an object: ${JSON.stringify(body)?.slice(0, 200)}`];
  const top = Object.keys(body);
  if (top.length !== 1 || top[0] !== 'error') return [`top-level keys are [${top.join(', ')}], not [error]`];
  return errorObjectProblems((body as { error: unknown }).error, options);
}

/** The `error` object alone (the MCP door carries the same object in a tool error). */
export function errorObjectProblems(
  error: unknown,
  options: { details?: boolean | 'optional'; extraKeys?: string[] } = {},
): string[] {
  if (typeof error !== 'object' || error === null || Array.isArray(error))
    return [`error is not an object: ${JSON.stringify(error)}`];
  const e = error as Record<string, unknown>;
  const problems: string[] = [];
  const hasDetails = 'details' in e;
  const wantDetails = options.details === 'optional' ? hasDetails : options.details === true;
  const keys = [
    'code',
    'docs_url',
    'message',
    ...(options.extraKeys ?? []),
    ...(wantDetails ? ['details'] : []),
  ].sort();
  const actual = Object.keys(e).sort();
  if (JSON.stringify(actual) !== JSON.stringify(keys))
    problems.push(`error keys are [${actual.join(', ')}], not [${keys.join(', ')}]`);
  if (typeof e.code !== 'string' || e.code.length === 0) problems.push(`code is ${JSON.stringify(e.code)}`);
  if (e.docs_url !== DOCS_URL) problems.push(`docs_url is ${JSON.stringify(e.docs_url)}, not ${DOCS_URL}`);
  if (typeof e.message !== 'string' || e.message.length === 0) problems.push(`message is ${JSON.stringify(e.message)}`);
  if (wantDetails) problems.push(...detailsProblems(e.details));
  return problems;
}

/** zod's flattened error: formErrors an array of strings, fieldErrors an object of string arrays. */
function detailsProblems(details: unknown): string[] {
  if (typeof details !== 'object' || details === null) return [`details is ${JSON.stringify(details)}`];
  const d = details as Record<string, unknown>;
  const problems: string[] = [];
  const keys = Object.keys(d).sort();
  if (JSON.stringify(keys) !== JSON.stringify(['fieldErrors', 'formErrors']))
    problems.push(`details keys are [${keys.join(', ')}]`);
  const strings = (v: unknown) => Array.isArray(v) && v.every((m) => typeof m === 'string');
  if (!strings(d.formErrors)) problems.push(`details.formErrors is ${JSON.stringify(d.formErrors)}`);
  const fields = d.fieldErrors;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
    problems.push(`details.fieldErrors is ${JSON.stringify(fields)}`);
  else
    for (const [field, messages] of Object.entries(fields))
      if (!strings(messages)) problems.push(`details.fieldErrors.${field} is ${JSON.stringify(messages)}`);
  return problems;
}

/** The error envelope with `status` and `code`; `details` only when asked for (a schema-validation invalid_body). */
export function expectError(res: Reply, status: number, code: string, options: { details?: boolean } = {}): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(errorEnvelopeProblems(res.body, { details: options.details ?? false })).toEqual([]);
}

/** A schema failure naming `field` among its fieldErrors (each entry an array of message strings). */
export function expectFieldError(res: Reply, field: string): void {
  expectError(res, 400, 'invalid_body', { details: true });
  const messages = res.body.error.details.fieldErrors[field];
  expect(messages, `fieldErrors.${field} in ${JSON.stringify(res.body.error.details)}`).toBeInstanceOf(Array);
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) expect(typeof message).toBe('string');
}

/** The outbox rows of a workspace (or of every workspace), oldest first. */
export async function eventsOf(runtime: Runtime, workspaceId?: string) {
  const query = runtime.db.select().from(events);
  const rows = workspaceId
    ? await query.where(eq(events.workspaceId, workspaceId)).orderBy(asc(events.seq)).all()
    : await query.orderBy(asc(events.seq)).all();
  return rows;
}

/** The raw content row, straight from the database. */
export async function contentRow(runtime: Runtime, id: string) {
  return runtime.db.select().from(content).where(eq(content.id, id)).get();
}

/** Inserts `count` items already published at `publishedAt`, as the publishing run would leave them. */
export async function insertPublished(
  runtime: Runtime,
  workspaceId: string,
  count: number,
  publishedAt: Date,
): Promise<void> {
  const rows = Array.from({ length: count }, () => ({
    id: randomUUID(),
    workspaceId,
    caption: 'Already out',
    hashtags: [],
    contentType: 'text_only' as const,
    targetPlatforms: ['twitter'],
    mediaUrls: [],
    platformSpecific: {},
    status: 'published' as const,
    publishResults: [],
    publishedAt,
    createdAt: publishedAt,
    updatedAt: publishedAt,
  }));
  await runtime.db.insert(content).values(rows).run();
}

/** Puts an item into a status no client may set (publishing, published), as the publishing run does. */
export async function forceStatus(
  runtime: Runtime,
  id: string,
  status: 'publishing' | 'published' | 'archived',
): Promise<void> {
  await runtime.db.update(content).set({ status }).where(eq(content.id, id)).run();
}
