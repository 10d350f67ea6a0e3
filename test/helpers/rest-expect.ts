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
 * SPEC.md, Errors: one top-level key `error` holding exactly code, message and docs_url; a
 * schema-validation invalid_body adds `details` (and only then).
 */
export function expectError(res: Reply, status: number, code: string, options: { details?: boolean } = {}): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(Object.keys(res.body)).toEqual(['error']);
  const keys = options.details ? ['code', 'details', 'docs_url', 'message'] : ['code', 'docs_url', 'message'];
  expect(Object.keys(res.body.error).sort()).toEqual(keys);
  expect(res.body.error.docs_url).toBe(DOCS_URL);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if (options.details) {
    expect(Object.keys(res.body.error.details).sort()).toEqual(['fieldErrors', 'formErrors']);
    expect(Array.isArray(res.body.error.details.formErrors)).toBe(true);
    expect(typeof res.body.error.details.fieldErrors).toBe('object');
    expect(Array.isArray(res.body.error.details.fieldErrors)).toBe(false);
  }
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
export function eventsOf(runtime: Runtime, workspaceId?: string) {
  const query = runtime.db.select().from(events);
  const rows = workspaceId ? query.where(eq(events.workspaceId, workspaceId)).orderBy(asc(events.seq)).all() : query.orderBy(asc(events.seq)).all();
  return rows;
}

/** The raw content row, straight from the database. */
export function contentRow(runtime: Runtime, id: string) {
  return runtime.db.select().from(content).where(eq(content.id, id)).get();
}

/** Inserts `count` items already published at `publishedAt`, as the publishing run would leave them. */
export function insertPublished(runtime: Runtime, workspaceId: string, count: number, publishedAt: Date): void {
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
  runtime.db.insert(content).values(rows).run();
}

/** Puts an item into a status no client may set (publishing, published), as the publishing run does. */
export function forceStatus(runtime: Runtime, id: string, status: 'publishing' | 'published' | 'archived'): void {
  runtime.db.update(content).set({ status }).where(eq(content.id, id)).run();
}
