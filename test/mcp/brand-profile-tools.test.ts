import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { connectMcp, useMcpTestbed } from '../helpers/mcp.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

const PATH = '/api/v1/brand-profile';

/**
 * service_get_brand_profile and service_update_brand_profile (any subset of both field sets):
 * GET and PATCH /brand-profile through the SDK client.
 */
describe('MCP brand profile tools', () => {
  const bed = useMcpTestbed();

  const rest = (method: string, body?: unknown, workspace = bed.ws) =>
    call(bed.server, method, PATH, { headers: workspace.headers, body });

  it('lists both right after service_get_account, with their annotations and a description for an agent', async () => {
    const { tools } = await bed.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.slice(names.indexOf('service_get_account'), names.indexOf('service_get_account') + 3)).toEqual([
      'service_get_account',
      'service_get_brand_profile',
      'service_update_brand_profile',
    ]);
    const get = tools.find((t) => t.name === 'service_get_brand_profile')!;
    const update = tools.find((t) => t.name === 'service_update_brand_profile')!;
    expect(get.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(update.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(update.description).toMatch(/send only the fields to change/);
    expect(update.description).toMatch(/read before every AI generation/);
    const props = update.inputSchema.properties as Record<string, any>;
    expect(props.tone_humor).toMatchObject({ type: 'integer', minimum: 0, maximum: 10 });
    expect(props.brand_name).toMatchObject({ type: 'string', minLength: 1, maxLength: 160 });
    expect(props.forbidden_words).toMatchObject({
      type: 'array',
      maxItems: 100,
      items: { type: 'string', maxLength: 100 },
    });
    expect(props.example_posts).toMatchObject({
      type: 'array',
      maxItems: 20,
      items: { type: 'string', maxLength: 500 },
    });
  });

  it('service_get_brand_profile answers the defaults, as GET /brand-profile does', async () => {
    const profile = await toolResult(bed.client, 'service_get_brand_profile');
    expect(profile).toMatchObject({
      object: 'brand_profile',
      workspace_id: bed.ws.workspace.id,
      voice: null,
      brand_name: null,
      topics_to_avoid: [],
      forbidden_words: [],
      tone_formality: 5,
      tone_humor: 5,
      tone_energy: 5,
      updated_at: bed.ws.workspace.createdAt.toISOString(),
    });
    const viaRest = await rest('GET');
    expect(viaRest.status).toBe(200);
    expect(profile).toEqual(viaRest.body);
  });

  it('service_update_brand_profile changes the fields sent, from either set, and service_get_brand_profile then shows them', async () => {
    bed.runtime.clock.advance(90_000);
    const updated = await toolResult(bed.client, 'service_update_brand_profile', {
      brand_name: 'Acme',
      tone_energy: 9,
      forbidden_words: ['cheap'],
      voice: 'Plain and upbeat',
    });
    expect(updated).toMatchObject({
      brand_name: 'Acme',
      tone_energy: 9,
      forbidden_words: ['cheap'],
      voice: 'Plain and upbeat',
      tone_humor: 5,
      industry: null,
      updated_at: bed.runtime.clock.now().toISOString(),
    });
    const got = await toolResult(bed.client, 'service_get_brand_profile');
    expect(got).toEqual(updated);
    expect(got).toEqual((await rest('GET')).body);

    const again = await toolResult(bed.client, 'service_update_brand_profile', {
      industry: null,
      website_url: 'https://acme.example',
    });
    expect(again).toEqual({ ...updated, website_url: 'https://acme.example' });
  });

  it('returns a limit breach as a tool error unprocessable_entity, the same error REST answers', async () => {
    const body = { hashtag_strategy: 'x'.repeat(501) };
    const error = await toolError(bed.client, 'service_update_brand_profile', body, 'unprocessable_entity');
    expect(error.details).toEqual({ formErrors: [], fieldErrors: { hashtag_strategy: [expect.any(String)] } });
    const viaRest = await rest('PATCH', body);
    expect(viaRest.status).toBe(422);
    expect({ code: error.code, message: error.message, details: error.details }).toEqual({
      code: viaRest.body.error.code,
      message: viaRest.body.error.message,
      details: viaRest.body.error.details,
    });
    expect((await toolResult(bed.client, 'service_get_brand_profile')).hashtag_strategy).toBeNull();
  });

  it('returns a type error as a tool error invalid_body, also when a limit breach comes with it', async () => {
    const typed = await toolError(
      bed.client,
      'service_update_brand_profile',
      { tone_formality: 'very' },
      'invalid_body',
    );
    expect(Object.keys(typed.details.fieldErrors)).toEqual(['tone_formality']);
    const mixed = await toolError(
      bed.client,
      'service_update_brand_profile',
      { tone_formality: 11, primary_color: 'red' },
      'invalid_body',
    );
    expect(Object.keys(mixed.details.fieldErrors).sort()).toEqual(['primary_color', 'tone_formality']);
    expect((await toolResult(bed.client, 'service_get_brand_profile')).tone_formality).toBe(5);
  });

  it('returns no_updates for a call without a recognised field', async () => {
    await toolError(bed.client, 'service_update_brand_profile', {}, 'no_updates');
    await toolError(bed.client, 'service_update_brand_profile', { colour: 'blue' }, 'no_updates');
  });

  it('reads and writes only the caller workspace profile', async () => {
    const other = await makeWorkspace(bed.runtime);
    await toolResult(bed.client, 'service_update_brand_profile', { brand_name: 'Mine' });
    const theirs = await rest('GET', undefined, other);
    expect(theirs.body).toMatchObject({ workspace_id: other.workspace.id, brand_name: null });
    const otherClient = await connectMcp(bed.runtime, other.apiKey);
    expect((await toolResult(otherClient, 'service_get_brand_profile')).brand_name).toBeNull();
    await otherClient.close();
  });
});
