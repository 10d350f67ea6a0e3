import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeWorkspace } from '../helpers/factories.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime } from '../helpers/runtime.ts';

/**
 * The whole tools/list answer (names, titles, descriptions, input and output schemas, annotations)
 * against a committed file, so any change to the tool surface shows as a deliberate diff. After an
 * intended change: `npx vitest run test/mcp/tools-snapshot.test.ts -u`, and review the diff.
 * The configuration is fixed here (testRuntime's PUBLIC_BASE_URL, every tool exposed), so the
 * answer does not depend on the environment.
 */
describe('MCP tools/list snapshot', () => {
  it('matches the committed tool surface', async () => {
    const runtime = testRuntime({ env: { PUBLIC_BASE_URL: 'https://publishing.example.com' } });
    const client = await connectMcp(runtime, makeWorkspace(runtime).apiKey);
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
});
