import type { PlanName } from '../../db/plans.ts';
import { createApiKey } from '../../src/core/accounts/api-keys.ts';
import { createWorkspace, type PlanStatus, type Workspace } from '../../src/core/accounts/workspaces.ts';
import { createContent } from '../../src/core/content/operations.ts';
import type { ContentResource } from '../../src/core/content/serialize.ts';
import { contextFor, type Runtime } from '../../src/core/context.ts';
import { runOperation } from '../../src/core/operation.ts';

export interface TestWorkspace {
  workspace: Workspace;
  apiKey: string;
  /** Ready-made request headers for this workspace. */
  headers: Record<string, string>;
}

let counter = 0;

export function makeWorkspace(
  runtime: Runtime,
  overrides: { name?: string; plan?: PlanName; status?: PlanStatus } = {},
): TestWorkspace {
  counter += 1;
  const { workspace, apiKey } = createWorkspace(runtime, {
    name: overrides.name ?? `Workspace ${counter}`,
    ...overrides,
  });
  return { workspace, apiKey, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } };
}

export function makeKey(runtime: Runtime, workspaceId: string, expiresAt: Date | null = null) {
  return createApiKey(runtime, { workspaceId, expiresAt });
}

/** Creates a content item through the core operation, as a REST or MCP call would. */
export function makeContent(
  runtime: Runtime,
  workspace: Workspace,
  input: Record<string, unknown> = {},
): ContentResource {
  return runOperation(createContent, contextFor(runtime, workspace, 'rest'), {
    caption: 'A caption worth posting',
    ...input,
  });
}
