import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../helpers/factories.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime } from '../helpers/runtime.ts';

describe('MCP serverInfo', () => {
  it('names the service with a title and gives PUBLIC_BASE_URL as its websiteUrl', async () => {
    for (const base of ['https://publishing.example.com', 'http://127.0.0.1:4123']) {
      const runtime = await testRuntime({ env: { PUBLIC_BASE_URL: base } });
      const client = await connectMcp(runtime, (await makeWorkspace(runtime)).apiKey);
      try {
        expect(client.getServerVersion()).toEqual({
          name: 'content-publishing-service',
          title: 'Content Publishing Service',
          version: '0.1.0',
          websiteUrl: base,
        });
      } finally {
        await client.close();
      }
    }
  });
});
