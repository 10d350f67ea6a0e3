import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { revokeApiKey } from '../../src/core/accounts/api-keys.ts';
import { updateBrandProfile } from '../../src/core/brand-profile/operations.ts';
import { createCampaign, launchCampaign, updateCampaign } from '../../src/core/campaigns/operations.ts';
import { deleteContent, publishContent, updateContent } from '../../src/core/content/operations.ts';
import { contextFor } from '../../src/core/context.ts';
import { executeOperation, runOperation } from '../../src/core/operation.ts';
import { encodeCursor } from '../../src/core/pagination.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { createWebhook, testWebhook, updateWebhook } from '../../src/core/webhooks/operations.ts';
import { png, jpeg } from '../fixtures/media/files.ts';
import { makeContent, makeKey, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/http.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { baseEnv, forceStatus } from '../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

const FILLER_STATUSES = ['draft', 'pending_review', 'approved'] as const;

export const APP_SECRET = 'fuzz-facebook-app-secret';

/** Meta's signed_request, as the deauthorization callbacks take it (see test/rest/callbacks.test.ts). */
export function signRequest(payload: unknown, secret = APP_SECRET): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${createHmac('sha256', secret).update(body).digest('base64url')}.${body}`;
}

/** Ids of one workspace's resources, by kind (content in every status, archived and publishing ones included: writes to them are 409). */
export interface WorkspaceIds {
  content: string[];
  campaigns: string[];
  webhooks: string[];
  /** `<storage key>.<ext>` of uploaded files, as /media/{file} takes them. */
  mediaFiles: string[];
  /** Cursors that decode to real positions in this workspace's lists. */
  cursors: string[];
  /** The platform user ids of its facebook accounts (for signed callbacks). */
  facebookUserIds: string[];
}

/**
 * The data every fuzz property runs against: workspace A (the caller) and B (the other workspace,
 * whose ids must answer 404 to A), with content in every status, campaigns in every status,
 * webhooks with a delivery log, uploaded media, social accounts and a brand profile; plus keys that
 * fail each authentication check.
 */
export interface World {
  runtime: TestRuntime;
  server: TestServer;
  receiver: Receiver;
  mediaDir: string;
  a: TestWorkspace;
  b: TestWorkspace;
  ids: { a: WorkspaceIds; b: WorkspaceIds };
  /** Authorization header values that fail authentication: expired or revoked key, past-due workspace, free plan. */
  badKeys: { expired: string; revoked: string; pastDue: string; freePlan: string };
  /** An MCP client acting with A's key, or with one that fails; connected on first use. */
  mcp(who: McpClientName): Promise<Client>;
  close(): Promise<void>;
}

/** Small, so an upload past the limit (413) is cheap to send. */
export const FUZZ_MEDIA_MAX_BYTES = 64 * 1024;

export type McpClientName = 'a' | 'expired' | 'revoked' | 'pastDue' | 'freePlan' | 'none';

/** Limits high enough that the fuzz never meets them, except the property that means to. */
const UNLIMITED = {
  RATE_LIMIT_READ: '100000000',
  RATE_LIMIT_WRITE: '100000000',
  RATE_LIMIT_PUBLISH: '100000000',
  RATE_LIMIT_MEDIA: '100000000',
};

export async function buildWorld(options: { env?: Record<string, string> } = {}): Promise<World> {
  const mediaDir = mkdtempSync(join(tmpdir(), 'fuzz-media-'));
  const receiver = await startReceiver();
  const runtime = await testRuntime({
    env: {
      ...baseEnv,
      ...UNLIMITED,
      MEDIA_DIR: mediaDir,
      MEDIA_MAX_BYTES: String(FUZZ_MEDIA_MAX_BYTES),
      FACEBOOK_APP_SECRET: APP_SECRET,
      // Webhooks point at the local receiver; every test delivery stays on loopback.
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
      ...options.env,
    },
  });
  const server = await startTestServer(runtime);
  const a = await makeWorkspace(runtime, { name: 'Fuzz A' });
  const b = await makeWorkspace(runtime, { name: 'Fuzz B' });
  const pastDue = await makeWorkspace(runtime, { status: 'past_due' });
  const freePlan = await makeWorkspace(runtime, { plan: 'free' });
  const expired = (await makeKey(runtime, a.workspace.id, new Date(runtime.clock.now().getTime() - 60_000))).apiKey;
  const revokedKey = await makeKey(runtime, a.workspace.id);
  await revokeApiKey(runtime, revokedKey.keyId);

  const ids = {
    a: await seedWorkspace(runtime, server, receiver, a, 'a'),
    b: await seedWorkspace(runtime, server, receiver, b, 'b'),
  };

  const keys: Record<McpClientName, string | undefined> = {
    a: a.apiKey,
    expired,
    revoked: revokedKey.apiKey,
    pastDue: pastDue.apiKey,
    freePlan: freePlan.apiKey,
    none: undefined,
  };
  const clients = new Map<McpClientName, Promise<Client>>();
  const mcp = (who: McpClientName): Promise<Client> => {
    if (!clients.has(who)) clients.set(who, connectMcp(runtime, keys[who]));
    return clients.get(who)!;
  };
  return {
    runtime,
    server,
    receiver,
    mediaDir,
    a,
    b,
    ids,
    badKeys: {
      expired: `Bearer ${expired}`,
      revoked: `Bearer ${revokedKey.apiKey}`,
      pastDue: `Bearer ${pastDue.apiKey}`,
      freePlan: `Bearer ${freePlan.apiKey}`,
    },
    mcp,
    async close() {
      for (const client of clients.values()) await (await client).close();
      await server.close();
      await receiver.close();
      rmSync(mediaDir, { recursive: true, force: true });
    },
  };
}

async function seedWorkspace(
  runtime: TestRuntime,
  server: TestServer,
  receiver: Receiver,
  ws: TestWorkspace,
  tag: string,
): Promise<WorkspaceIds> {
  const ctx = contextFor(runtime, ws.workspace, 'rest');
  const run = async (operation: Parameters<typeof runOperation>[0], input: Record<string, unknown>) =>
    (await runOperation(operation, ctx, input)) as { id: string };
  const facebookUserId = tag === 'a' ? '1000000000000001' : '1000000000000002';
  await connectSocialAccount(runtime, { workspaceId: ws.workspace.id, platform: 'twitter', username: `fuzz_${tag}` });
  await connectSocialAccount(runtime, {
    workspaceId: ws.workspace.id,
    platform: 'linkedin',
    username: `fuzz_${tag}_li`,
  });
  await connectSocialAccount(runtime, {
    workspaceId: ws.workspace.id,
    platform: 'facebook',
    username: `fuzz_${tag}_fb`,
    platformUserId: facebookUserId,
  });

  await run(updateBrandProfile, {
    brand_name: `Brand ${tag}`,
    voice: 'Warm and direct',
    topics_to_lean_into: ['coffee'],
    tone_humor: 7,
  });

  // Content in every status a client can reach, and the two only the publishing run sets.
  const content: string[] = [];
  const base = {
    caption: `Seeded post of ${tag} ☕ مرحبا`,
    hashtags: ['coffee', 'morning'],
    target_platforms: ['twitter', 'linkedin'],
    media_urls: ['https://cdn.example.test/a.png'],
    topic: 'Mornings',
    platform_specific: { twitter: { caption: 'Short one' } },
    aspect_ratio: '1:1',
  };
  for (const status of ['draft', 'pending_review', 'approved'] as const)
    content.push((await makeContent(runtime, ws.workspace, { ...base, status })).id);
  content.push(
    (await makeContent(runtime, ws.workspace, { ...base, status: 'scheduled', scheduled_for: '2026-04-01T09:00:00Z' }))
      .id,
  );
  content.push((await makeContent(runtime, ws.workspace, { caption: 'Bare text', content_type: 'text_only' })).id);
  const rejected = (await makeContent(runtime, ws.workspace, base)).id;
  await run(updateContent, { id: rejected, status: 'rejected' });
  const archived = (await makeContent(runtime, ws.workspace, base)).id;
  await run(deleteContent, { id: archived });
  const queued = (await makeContent(runtime, ws.workspace, base)).id;
  await run(publishContent, { id: queued });
  const publishing = (await makeContent(runtime, ws.workspace, base)).id;
  await forceStatus(runtime, publishing, 'publishing');
  const published = (await makeContent(runtime, ws.workspace, base)).id;
  await forceStatus(runtime, published, 'published');
  content.push(rejected, archived, queued, publishing, published);
  for (let i = 0; i < 30; i++)
    content.push(
      (
        await makeContent(runtime, ws.workspace, {
          caption: `Filler ${i}`,
          status: FILLER_STATUSES[i % FILLER_STATUSES.length],
        })
      ).id,
    );

  // Campaigns in every status, three of each, so the deleting properties do not run out.
  const campaigns: string[] = [];
  const campaign = async (name: string) =>
    (
      await run(createCampaign, {
        name,
        content_mix: { carousel: 2, ugc: 1 },
        posts_per_day: 2,
        campaign_length_days: 3,
      })
    ).id;
  for (let i = 0; i < 3; i++) {
    campaigns.push(await campaign(`Draft ${tag} ${i}`));
    const launched = await campaign(`Active ${tag} ${i}`);
    await run(launchCampaign, { id: launched });
    campaigns.push(launched);
    for (const status of ['paused', 'completed', 'archived'] as const) {
      const id = await campaign(`${status} ${tag} ${i}`);
      await run(updateCampaign, { id, status });
      campaigns.push(id);
    }
  }

  // Webhooks on the local receiver, one disabled, the first two with a logged test delivery.
  const webhooks: string[] = [];
  for (const [i, events] of [
    [],
    ['content.created', 'content.published'],
    [],
    ['campaign.launched'],
    [],
    [],
  ].entries()) {
    const hook = (await executeOperation(ctx, createWebhook, { url: `${receiver.url}/hooks/${tag}/${i}`, events })) as {
      id: string;
    };
    if (i < 2) await executeOperation(ctx, testWebhook, { id: hook.id });
    webhooks.push(hook.id);
  }
  await executeOperation(ctx, updateWebhook, { id: webhooks[1], is_enabled: false });

  // Media uploaded through the real route.
  const mediaFiles: string[] = [];
  for (const [bytes, name] of [
    [png(4, 3), 'one.png'],
    [jpeg(8, 8), 'two.jpg'],
  ] as const) {
    const form = new FormData();
    form.append('file', new Blob([bytes]), name);
    form.append('tags', 'seed');
    const res = await server.request('/media_assets', {
      method: 'POST',
      headers: { authorization: ws.headers.authorization },
      body: form,
    });
    const asset = (await res.json()) as { url: string };
    if (res.status !== 201) throw new Error(`seeding media failed: ${JSON.stringify(asset)}`);
    mediaFiles.push(asset.url.split('/media/')[1]);
  }

  const cursors = content
    .slice(0, 5)
    .map((id, i) => encodeCursor({ createdAt: new Date(runtime.clock.now().getTime() - i * 1000), id }));
  return { content, campaigns, webhooks, mediaFiles, cursors, facebookUserIds: [facebookUserId] };
}
