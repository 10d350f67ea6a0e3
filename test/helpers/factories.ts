import { Readable } from 'node:stream';
import type { PlanName } from '../../db/plans.ts';
import { createApiKey } from '../../src/core/accounts/api-keys.ts';
import { createWorkspace, type PlanStatus, type Workspace } from '../../src/core/accounts/workspaces.ts';
import { createCampaign, launchCampaign } from '../../src/core/campaigns/operations.ts';
import type { CampaignResource } from '../../src/core/campaigns/serialize.ts';
import { createContent } from '../../src/core/content/operations.ts';
import type { ContentResource } from '../../src/core/content/serialize.ts';
import { contextFor, type Runtime } from '../../src/core/context.ts';
import { createMediaAsset } from '../../src/core/media/operations.ts';
import { uploadLimitsFor } from '../../src/core/media/quota.ts';
import { receiveUpload } from '../../src/core/media/receive.ts';
import type { MediaAssetResource } from '../../src/core/media/serialize.ts';
import { mediaStoreFor } from '../../src/core/media/store.ts';
import { runOperation } from '../../src/core/operation.ts';
import { createWebhook } from '../../src/core/webhooks/operations.ts';
import type { WebhookResource } from '../../src/core/webhooks/serialize.ts';
import { png } from '../fixtures/media/files.ts';

export interface TestWorkspace {
  workspace: Workspace;
  apiKey: string;
  /** The id of its first API key (what created_by names for items the key creates). */
  keyId: string;
  /** Ready-made request headers for this workspace. */
  headers: Record<string, string>;
}

let counter = 0;

export async function makeWorkspace(
  runtime: Runtime,
  overrides: { name?: string; plan?: PlanName; status?: PlanStatus } = {},
): Promise<TestWorkspace> {
  counter += 1;
  const { workspace, apiKey, keyId } = await createWorkspace(runtime, {
    name: overrides.name ?? `Workspace ${counter}`,
    ...overrides,
  });
  return {
    workspace,
    apiKey,
    keyId,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
  };
}

export async function makeKey(runtime: Runtime, workspaceId: string, expiresAt: Date | null = null) {
  return createApiKey(runtime, { workspaceId, expiresAt });
}

/** Creates a content item through the core operation, as a REST or MCP call would. */
export async function makeContent(
  runtime: Runtime,
  workspace: Workspace,
  input: Record<string, unknown> = {},
): Promise<ContentResource> {
  return runOperation(createContent, contextFor(runtime, workspace, 'rest'), {
    caption: 'A caption worth posting',
    ...input,
  });
}

/**
 * Creates a webhook subscription through the core operation (all events unless `events` says
 * otherwise). Its signing secret is known only from this answer, as for a REST caller.
 */
export async function makeWebhook(
  runtime: Runtime,
  workspace: Workspace,
  input: { url: string; events?: string[] },
): Promise<WebhookResource & { signing_secret: string }> {
  const created = await runOperation(createWebhook, contextFor(runtime, workspace, 'rest'), input);
  return created as WebhookResource & { signing_secret: string };
}

/** Creates a draft campaign through the core operation, launched too when `launch` is set. */
export async function makeCampaign(
  runtime: Runtime,
  workspace: Workspace,
  input: Record<string, unknown> = {},
  options: { launch?: boolean } = {},
): Promise<CampaignResource> {
  const ctx = contextFor(runtime, workspace, 'rest');
  const created = await runOperation(createCampaign, ctx, { name: 'A campaign', ...input });
  return options.launch ? await runOperation(launchCampaign, ctx, { id: created.id }) : created;
}

/**
 * Stores a file in the runtime's media directory and records its asset, as POST /media_assets does
 * (a 2x2 PNG unless `bytes` says otherwise). The runtime needs its own `MEDIA_DIR`.
 */
export async function makeMedia(
  runtime: Runtime,
  workspace: Workspace,
  input: { bytes?: Uint8Array; filename?: string; tags?: string[] } = {},
): Promise<MediaAssetResource> {
  const { dir, maxBytes } = runtime.config.media;
  const upload = await receiveUpload(
    mediaStoreFor(dir),
    Readable.from([input.bytes ?? png(2, 2)]),
    await uploadLimitsFor(runtime.db, workspace, maxBytes),
  );
  return runOperation(createMediaAsset, contextFor(runtime, workspace, 'rest'), {
    upload,
    filename: input.filename ?? 'upload.png',
    tags: input.tags,
  });
}

/** `make` over `items` one after another (rows made in order, as a loop would), answering what each made. */
export async function inOrder<T, R>(items: Iterable<T>, make: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const made: R[] = [];
  for (const item of items) made.push(await make(item, made.length));
  return made;
}
