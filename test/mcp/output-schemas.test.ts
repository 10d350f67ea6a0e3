import type { Tool } from '@modelcontextprotocol/client';
// SDK 1.x, for the control case below: its client checks structuredContent even on an error.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { default as addFormats } from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../tools/index.ts';
import { makeCampaign, makeContent, makeMedia, makeWebhook } from '../helpers/factories.ts';
import { useMcpTestbed } from '../helpers/mcp.ts';
import { connectAccounts } from '../helpers/publishing.ts';
import { toolResult } from '../helpers/tool-calls.ts';

const env = { ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64') };

/** Draft 2020-12, strict, with the formats zod writes (date-time, uuid, uri, email). */
function schemaValidator() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv);
  return ajv;
}

describe('MCP outputSchema', () => {
  const bed = useMcpTestbed({ env, media: true });

  it('is declared by every tool, with an object at the root, and compiles as draft 2020-12', async () => {
    const { tools } = await bed.client.listTools();
    expect(tools).toHaveLength(TOOLS.length);
    const ajv = schemaValidator();
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(tool.outputSchema!.type, tool.name).toBe('object');
      expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
    }
  });

  it('validates the structuredContent of a successful call of each of the twenty tools', async () => {
    // Listing first also makes the SDK client check each result against the schema itself.
    const { tools } = await bed.client.listTools();
    const schemas = new Map(tools.map((tool: Tool) => [tool.name, tool.outputSchema!]));
    const ajv = schemaValidator();
    const called = new Set<string>();
    const check = async (name: string, args: Record<string, unknown> = {}) => {
      const result = await toolResult(bed.client, name, args);
      const validate = ajv.compile(schemas.get(name)!);
      expect(validate(result), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      called.add(name);
      return result;
    };

    // Every list holds at least one item, so the item schemas are exercised too.
    const { workspace } = bed.ws;
    await connectAccounts(bed.runtime, workspace, ['linkedin']);
    await makeMedia(bed.runtime, workspace);
    await makeWebhook(bed.runtime, workspace, { url: 'https://93.184.216.34/hook' });
    const listed = await makeContent(bed.runtime, workspace, { topic: 'launch', hashtags: ['news'] });
    const campaign = await makeCampaign(bed.runtime, workspace);

    await check('service_get_account');
    await check('service_get_brand_profile');
    await check('service_update_brand_profile', { brand_name: 'Acme', tone_humor: 7, primary_color: '#112233' });
    expect((await check('service_list_social_accounts')).data).toHaveLength(1);
    expect((await check('service_list_media')).data).toHaveLength(1);
    const created = await check('service_create_content', {
      caption: 'Spring is here',
      content_type: 'text_only',
      target_platforms: ['linkedin'],
      scheduled_for: '2030-01-01T09:00:00Z',
      platform_specific: { linkedin: { caption: 'Spring is here, on LinkedIn' } },
    });
    expect((await check('service_list_content')).data.length).toBeGreaterThanOrEqual(2);
    await check('service_get_content', { id: created.id });
    await check('service_update_content', { id: created.id, status: 'approved' });
    await check('service_publish_content', { id: created.id });
    await check('service_delete_content', { id: listed.id });
    expect((await check('service_list_campaigns')).data).toHaveLength(1);
    await check('service_get_campaign', { id: campaign.id });
    const another = await check('service_create_campaign', { name: 'Summer', content_mix: { carousel: 2, ugc: 1 } });
    await check('service_update_campaign', { id: another.id, description: 'Warm days' });
    await check('service_launch_campaign', { id: campaign.id });
    await check('service_delete_campaign', { id: another.id });
    await check('service_get_analytics', { days: 7 });
    expect((await check('service_list_webhooks')).data).toHaveLength(1);
    expect((await check('service_list_templates', { limit: 5 })).data).toHaveLength(5);

    expect([...called].sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
  });

  it('refuses a result that breaks it, so the check above can fail', async () => {
    const { tools } = await bed.client.listTools();
    const schema = tools.find((tool) => tool.name === 'service_get_content')!.outputSchema!;
    const validate = schemaValidator().compile(schema);
    const item = await makeContent(bed.runtime, bed.ws.workspace);
    expect(validate(JSON.parse(JSON.stringify(item)))).toBe(true);
    expect(validate({ ...item, status: 'lost' })).toBe(false);
    expect(validate({ ...item, caption: 42 })).toBe(false);
    expect(validate({ ...item, published_at: 0 })).toBe(false);
    expect(validate({ ...item, publish_results: [{ success: 'yes' }] })).toBe(false);
    // Open objects (see src/mcp/lean-schema.ts): a field added later does not break a client holding an older listing.
    expect(validate({ ...item, added_later: true })).toBe(true);
  });
});

describe('a failing call through the SDK client (2.4)', () => {
  const bed = useMcpTestbed();

  const textOf = (result: Record<string, unknown>) => (result.content as Array<{ type: string; text: string }>)[0].text;

  it('resolves with isError, no structuredContent and the code in the text, once the client holds the output schemas', async () => {
    const { tools } = await bed.client.listTools();
    expect(tools.every((tool) => tool.outputSchema)).toBe(true);
    const draft = await makeContent(bed.runtime, bed.ws.workspace);
    const launched = await makeCampaign(bed.runtime, bed.ws.workspace, {}, { launch: true });
    const failing: Array<[string, Record<string, unknown>, string]> = [
      ['service_get_content', { id: '00000000-0000-4000-8000-000000000000' }, 'not_found'],
      ['service_create_content', { caption: '' }, 'invalid_body'],
      ['service_publish_content', { id: draft.id }, 'no_target_platforms'],
      ['service_launch_campaign', { id: launched.id }, 'invalid_state'],
      ['service_update_campaign', { id: launched.id }, 'no_updates'],
    ];
    for (const [name, args, code] of failing) {
      const result = await bed.client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      expect(result.structuredContent, name).toBeUndefined();
      expect(JSON.parse(textOf(result)).error.code, name).toBe(code);
    }
  });

  it('would make SDK 1.x clients throw an output-validation error if an error carried an error object as structuredContent', async () => {
    // A stand-in server with the real service_get_content listing, answering errors the old way. SDK v2's
    // client no longer checks an error's structuredContent; 2025-11-25 clients on SDK 1.x still do.
    const { tools } = await bed.client.listTools();
    const listing = tools.filter((tool) => tool.name === 'service_get_content');
    const server = new ServerV1({ name: 'old-shape', version: '0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
    server.setRequestHandler(CallToolRequestSchema, () => {
      // An error object that breaks the schema (object is "content" in every success).
      const body = { object: 'error', error: { code: 'not_found', message: 'No content item with this id.' } };
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    });
    const [clientTransport, serverTransport] = InMemoryTransportV1.createLinkedPair();
    await server.connect(serverTransport);
    const client = new ClientV1({ name: 'control', version: '0' });
    await client.connect(clientTransport);
    try {
      await client.listTools();
      await expect(client.callTool({ name: 'service_get_content', arguments: { id: 'x' } })).rejects.toThrow(
        /output schema/,
      );
    } finally {
      await client.close();
    }
  });
});
