import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/core/operation.ts';
import { requiredScope } from '../../src/core/oauth/scopes.ts';
import { OAUTH_SCOPES } from '../../src/core/oauth/metadata.ts';

/** Every module of the core, loaded so that each operation it exports (and each one's dry run) is found. */
const CORE = fileURLToPath(new URL('../../src/core/', import.meta.url));
const modules: Array<Record<string, unknown>> = await Promise.all(
  readdirSync(CORE, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => import(join(CORE, file)) as Promise<Record<string, unknown>>),
);

const isOperation = (value: unknown): value is Operation =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Operation).name === 'string' &&
  Array.isArray((value as Operation).buckets) &&
  typeof (value as Operation).run === 'function';

function everyOperation(): Operation[] {
  const found = new Map<string, Operation>();
  const add = (operation: Operation) => {
    found.set(operation.name, operation);
    if (operation.dryRun) add(operation.dryRun);
  };
  for (const exports of modules) for (const value of Object.values(exports)) if (isOperation(value)) add(value);
  return [...found.values()];
}

/**
 * The scope each operation needs, as the contract has it: reads need read, changes write, and what
 * leads to posts going out (publishing, launching a campaign) publish. Adding an operation means
 * adding it here, on purpose.
 */
const SCOPES: Record<string, (typeof OAUTH_SCOPES)[number]> = {
  browseContent: 'read',
  calendarContent: 'read',
  changeMemberRole: 'write',
  createCampaign: 'write',
  createContent: 'write',
  createKey: 'write',
  createMediaAsset: 'write',
  createWebhook: 'write',
  deleteCampaign: 'write',
  deleteContent: 'write',
  deleteMediaAsset: 'write',
  deleteWebhook: 'write',
  disconnectAccount: 'write',
  getAccount: 'read',
  getAnalyticsOverview: 'read',
  getBrandProfile: 'read',
  getCampaign: 'read',
  getContent: 'read',
  getWebhook: 'read',
  inviteMember: 'write',
  launchCampaign: 'publish',
  listCampaigns: 'read',
  listCampaignsWithActions: 'read',
  listContent: 'read',
  listKeys: 'read',
  listMedia: 'read',
  listMembers: 'read',
  listPendingInvites: 'read',
  listSocialAccounts: 'read',
  listSocialAccountsWithActions: 'read',
  listTemplates: 'read',
  listWebhookDeliveries: 'read',
  listWebhookDeliveriesWithActions: 'read',
  listWebhooks: 'read',
  listWebhooksWithActions: 'read',
  previewPublish: 'publish',
  publishContent: 'publish',
  reconnectSocialAccount: 'write',
  reenableWebhook: 'write',
  removeMember: 'write',
  resendDelivery: 'write',
  resendFailedDeliveries: 'write',
  reviewContent: 'read',
  revokeKey: 'write',
  rotateWebhookSecret: 'write',
  startAccountConnection: 'write',
  startSessionConnection: 'write',
  testWebhook: 'write',
  updateAccount: 'write',
  updateBrandProfile: 'write',
  updateCampaign: 'write',
  updateContent: 'write',
  updateMediaAsset: 'write',
  updateWebhook: 'write',
  withdrawInvite: 'write',
  workspaceAtAGlance: 'read',
  // The content intents write through updateContent or publishContent; the policy asks publish of
  // the ones that queue a post (approve and schedule or publish now, schedule, publish now).
  approveContent: 'write',
  moveContent: 'write',
  publishContentNow: 'write',
  rejectContent: 'write',
  reviewContentMany: 'write',
  scheduleContent: 'write',
};

describe('every operation declares the OAuth scope it needs', () => {
  const operations = everyOperation();

  it('finds the operations of the core', () => {
    expect(operations.length).toBeGreaterThanOrEqual(Object.keys(SCOPES).length);
  });

  it('declares a scope on each, read, write or publish', () => {
    for (const operation of operations) expect(OAUTH_SCOPES, operation.name).toContain(operation.scope);
  });

  it('answers requiredScope from the declared scope alone, whatever the buckets say', () => {
    for (const operation of operations) expect(requiredScope(operation), operation.name).toBe(operation.scope);
    // The launch takes only from the write bucket, and still needs publish.
    const launch = operations.find((operation) => operation.name === 'launchCampaign')!;
    expect(launch.buckets).toEqual(['write']);
    expect(requiredScope(launch)).toBe('publish');
  });

  it('needs exactly the scopes of the table', () => {
    expect(Object.fromEntries(operations.map((operation) => [operation.name, operation.scope]))).toEqual(SCOPES);
  });
});
