import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { apiKeys, apiKeyUses } from '../../../db/schema/index.ts';
import { dateTimeInput } from '../dates.ts';
import { fieldError, notFound } from '../errors.ts';
import { defineOperation } from '../operation.ts';
import { API_KEY_PREFIX, issueApiKey } from './api-keys.ts';

/**
 * The workspace's API keys as an admin manages them: on the dashboard's keys page and in the admin
 * CLI, never on the public API (a key cannot mint or list keys). A key's secret is shown once, in the
 * answer that creates it; every list shows only `np_live_…` and its last four characters.
 */

export const MAX_KEY_NAME_LENGTH = 100;

const keyName = z
  .string({ error: 'Give the key a name, such as "Zapier" or "Staging server".' })
  .trim()
  .min(1, 'Give the key a name, such as "Zapier" or "Staging server".')
  .max(MAX_KEY_NAME_LENGTH, `The name is longer than ${MAX_KEY_NAME_LENGTH} characters.`);

export const CreateKeyInput = z.object({
  name: keyName,
  expires_at: dateTimeInput.nullable().optional(),
});

export const KeyIdInput = z.object({ id: z.string().min(1).max(64) });

/** One key as lists show it: never the key itself. */
export const KeySummary = z.object({
  id: z.string(),
  name: z.string(),
  /** `np_live_…` and the last four characters: enough to tell keys apart, nothing to use. */
  masked: z.string(),
  created_at: z.date(),
  last_used_at: z.date().nullable(),
  expires_at: z.date().nullable(),
  revoked_at: z.date().nullable(),
});
export type KeySummary = z.output<typeof KeySummary>;

export const maskedKey = (lastFour: string): string => `${API_KEY_PREFIX}…${lastFour}`;

/** Every key of the workspace, revoked ones included (they say so), newest first. */
export const listKeys = defineOperation({
  name: 'listKeys',
  role: 'admin',
  buckets: ['read'],
  scope: 'read',
  input: z.object({}),
  output: z.array(KeySummary),
  async run({ db, workspace }): Promise<KeySummary[]> {
    return (
      await db
        .select({ key: apiKeys, lastUsedAt: apiKeyUses.lastUsedAt })
        .from(apiKeys)
        .leftJoin(apiKeyUses, eq(apiKeyUses.keyId, apiKeys.id))
        .where(eq(apiKeys.workspaceId, workspace.id))
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
        .all()
    ).map(({ key, lastUsedAt }) => ({
      id: key.id,
      name: key.name,
      masked: maskedKey(key.lastFour),
      created_at: key.createdAt,
      last_used_at: lastUsedAt,
      expires_at: key.expiresAt,
      revoked_at: key.revokedAt,
    }));
  },
});

/** A new named key: the answer carries the key itself, this once. */
export const createKey = defineOperation({
  name: 'createKey',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: CreateKeyInput,
  output: z.object({ id: z.string(), name: z.string(), api_key: z.string(), expires_at: z.date().nullable() }),
  async run({ db, workspace, clock }, input) {
    const now = clock.now();
    const expiresAt = input.expires_at ?? null;
    if (expiresAt && expiresAt.getTime() <= now.getTime())
      throw fieldError('expires_at', 'The expiry must be in the future.');
    const { keyId, apiKey } = await issueApiKey(db, { workspaceId: workspace.id, now, expiresAt, name: input.name });
    return { id: keyId, name: input.name, api_key: apiKey, expires_at: expiresAt };
  },
});

/**
 * Revokes a key of this workspace: refused from the very next request, in every process (the write
 * moves the auth epoch). Revoking a revoked key changes nothing and answers the same.
 */
export const revokeKey = defineOperation({
  name: 'revokeKey',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: KeyIdInput,
  output: z.object({ id: z.string(), name: z.string(), revoked_at: z.date() }),
  async run({ db, workspace, clock }, input) {
    const key = await db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.workspaceId, workspace.id), eq(apiKeys.id, input.id)))
      .get();
    if (!key) throw notFound('API key');
    if (key.revokedAt) return { id: key.id, name: key.name, revoked_at: key.revokedAt };
    const revokedAt = clock.now();
    await db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, key.id)).run();
    return { id: key.id, name: key.name, revoked_at: revokedAt };
  },
});
