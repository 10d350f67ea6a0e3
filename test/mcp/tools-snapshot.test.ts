import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeWorkspace } from '../helpers/factories.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { TOOLS } from '../../tools/index.ts';

/**
 * What every conversation pays before its first word (about 4 characters a token). It was 92,001
 * before the lean schemas; the bound leaves room for fields still to come.
 */
const MAX_TOOLS_LIST_CHARS = 45_000;

/**
 * The whole tools/list answer (names, titles, descriptions, input and output schemas, annotations)
 * against a committed file, so any change to the tool surface shows as a deliberate diff. After an
 * intended change: `npx vitest run test/mcp/tools-snapshot.test.ts -u`, and review the diff.
 * The configuration is fixed here (testRuntime's PUBLIC_BASE_URL, every tool exposed), so the
 * answer does not depend on the environment.
 */
describe('MCP tools/list snapshot', () => {
  it('matches the committed tool surface', async () => {
    const runtime = await testRuntime({ env: { PUBLIC_BASE_URL: 'https://publishing.example.com' } });
    const client = await connectMcp(runtime, (await makeWorkspace(runtime)).apiKey);
    try {
      // Read as sent, not through the SDK's ListToolsResult schema, which would drop keys it does not know.
      const answer = await client.request(
        { method: 'tools/list', params: {} },
        z.looseObject({ tools: z.array(z.looseObject({})) }),
      );
      expect(answer.tools).toHaveLength(20);
      await expect(`${JSON.stringify(answer, null, 2)}\n`).toMatchFileSnapshot('./__snapshots__/tools-list.json');
    } finally {
      await client.close();
    }
  });

  it(`stays within ${MAX_TOOLS_LIST_CHARS} characters of compact JSON, every tool with its annotations and outputSchema`, async () => {
    const runtime = await testRuntime({ env: { PUBLIC_BASE_URL: 'https://publishing.example.com' } });
    const client = await connectMcp(runtime, (await makeWorkspace(runtime)).apiKey);
    try {
      const answer = await client.request(
        { method: 'tools/list', params: {} },
        z.looseObject({ tools: z.array(z.looseObject({})) }),
      );
      expect(answer.tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
      for (const tool of answer.tools) {
        expect(tool.annotations, String(tool.name)).toMatchObject({
          readOnlyHint: expect.any(Boolean),
          destructiveHint: expect.any(Boolean),
          idempotentHint: expect.any(Boolean),
          openWorldHint: expect.any(Boolean),
        });
        expect(tool.outputSchema, String(tool.name)).toMatchObject({ type: 'object' });
      }
      expect(JSON.stringify(answer).length).toBeLessThanOrEqual(MAX_TOOLS_LIST_CHARS);
    } finally {
      await client.close();
    }
  });
});
