import type { Client } from '@modelcontextprotocol/client';
import type { Tool } from '@modelcontextprotocol/client';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../helpers/factories.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime } from '../helpers/runtime.ts';

const CONTENT_FIELDS = [
  'caption',
  'hashtags',
  'content_type',
  'target_platforms',
  'media_urls',
  'media_alt_text',
  'topic',
  'platform_specific',
  'aspect_ratio',
  'scheduled_for',
  'status',
];

/** The brand profile update tool takes any subset of both field sets. */
const BRAND_PROFILE_FIELDS = [
  'voice',
  'audience',
  'topics_to_lean_into',
  'topics_to_avoid',
  'style_notes',
  'example_posts',
  'brand_name',
  'industry',
  'target_audience',
  'company_description',
  'website_url',
  'tone_formality',
  'tone_humor',
  'tone_energy',
  'vocabulary',
  'forbidden_words',
  'primary_color',
  'secondary_color',
  'accent_color',
  'hashtag_strategy',
];

const CAMPAIGN_FIELDS = ['name', 'description', 'posts_per_day', 'campaign_length_days', 'start_date', 'content_mix'];

/** Each tool takes its endpoint's argument names. */
const EXPECTED_ARGUMENTS: Record<string, { properties: string[]; required: string[] }> = {
  service_get_account: { properties: [], required: [] },
  service_get_brand_profile: { properties: [], required: [] },
  service_update_brand_profile: { properties: BRAND_PROFILE_FIELDS, required: [] },
  service_list_social_accounts: { properties: [], required: [] },
  service_list_media: { properties: ['limit', 'cursor', 'asset_type'], required: [] },
  service_list_content: {
    properties: [
      'status',
      'content_type',
      'q',
      'campaign_id',
      'platform',
      'scheduled_from',
      'scheduled_to',
      'failed_since',
      'limit',
      'cursor',
    ],
    required: [],
  },
  service_get_content: { properties: ['id'], required: ['id'] },
  service_create_content: { properties: [...CONTENT_FIELDS, 'idempotency_key'], required: ['caption'] },
  service_update_content: { properties: ['id', ...CONTENT_FIELDS, 'review_note'], required: ['id'] },
  service_delete_content: { properties: ['id'], required: ['id'] },
  service_publish_content: { properties: ['id', 'scheduled_for', 'dry_run', 'idempotency_key'], required: ['id'] },
  service_list_campaigns: { properties: ['limit', 'cursor'], required: [] },
  service_get_campaign: { properties: ['id'], required: ['id'] },
  service_create_campaign: { properties: [...CAMPAIGN_FIELDS, 'idempotency_key'], required: ['name'] },
  service_update_campaign: { properties: ['id', ...CAMPAIGN_FIELDS, 'status'], required: ['id'] },
  service_delete_campaign: { properties: ['id'], required: ['id'] },
  service_launch_campaign: { properties: ['id', 'idempotency_key'], required: ['id'] },
  service_get_analytics: { properties: ['days'], required: [] },
  service_list_webhooks: { properties: [], required: [] },
  service_list_templates: { properties: ['niche', 'source_platform', 'content_type', 'limit', 'cursor'], required: [] },
};

describe('MCP tools/list', () => {
  let client: Client;
  let tools: Tool[];
  const byName = (name: string): Tool => {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new Error(`tool ${name} not listed`);
    return tool;
  };

  beforeEach(async () => {
    const runtime = await testRuntime();
    client = await connectMcp(runtime, (await makeWorkspace(runtime)).apiKey);
    ({ tools } = await client.listTools());
  });

  it('lists exactly the content, account and analytics tools', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(EXPECTED_ARGUMENTS).sort());
  });

  it('gives every tool a title and a description written for an agent', () => {
    for (const tool of tools) {
      expect(tool.name).toMatch(/^service_[a-z_]+$/);
      expect(tool.title ?? tool.annotations?.title).toBeTruthy();
      expect(tool.description?.length ?? 0).toBeGreaterThan(80);
    }
  });

  it('marks the reads read-only, the deletes destructive, publish and launch open-world', () => {
    for (const name of [
      'service_get_account',
      'service_get_brand_profile',
      'service_list_social_accounts',
      'service_list_content',
      'service_get_content',
      'service_list_campaigns',
      'service_get_campaign',
      'service_get_analytics',
      'service_list_webhooks',
      'service_list_templates',
      'service_list_media',
    ]) {
      expect(byName(name).annotations?.readOnlyHint, name).toBe(true);
      expect(byName(name).annotations?.destructiveHint, name).not.toBe(true);
    }
    const writes = [
      'service_update_brand_profile',
      'service_create_content',
      'service_update_content',
      'service_publish_content',
      'service_create_campaign',
      'service_update_campaign',
      'service_launch_campaign',
    ];
    for (const name of [...writes, 'service_delete_content', 'service_delete_campaign']) {
      expect(byName(name).annotations?.readOnlyHint, name).not.toBe(true);
    }
    expect(byName('service_delete_content').annotations?.destructiveHint).toBe(true);
    expect(byName('service_delete_campaign').annotations?.destructiveHint).toBe(true);
    for (const name of writes) expect(byName(name).annotations?.destructiveHint, name).not.toBe(true);
    // Only these two reach outside the service: live platforms, AI credits.
    const openWorld = tools.filter((tool) => tool.annotations?.openWorldHint).map((tool) => tool.name);
    expect(openWorld.sort()).toEqual(['service_launch_campaign', 'service_publish_content']);
    expect(byName('service_launch_campaign').description).toMatch(/AI credits/);
    expect(byName('service_launch_campaign').description).toMatch(/quota/);
  });

  it('uses the REST argument names in every input schema', () => {
    for (const [name, expected] of Object.entries(EXPECTED_ARGUMENTS)) {
      const schema = byName(name).inputSchema;
      expect(schema.type, name).toBe('object');
      expect(Object.keys(schema.properties ?? {}).sort(), name).toEqual([...expected.properties].sort());
      expect([...(schema.required ?? [])].sort(), name).toEqual([...expected.required].sort());
    }
  });

  it('offers idempotency_key on exactly the four creating tools', () => {
    const keyed = tools.filter((tool) => 'idempotency_key' in (tool.inputSchema.properties ?? {})).map((t) => t.name);
    expect(keyed.sort()).toEqual(
      [
        'service_create_campaign',
        'service_create_content',
        'service_launch_campaign',
        'service_publish_content',
      ].sort(),
    );
    const key = byName('service_create_content').inputSchema.properties!.idempotency_key as Record<string, unknown>;
    expect(key).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
    expect(key.description).toMatch(/Idempotency-Key/);
  });

  /** A tool's input properties, a `$ref` into its `$defs` (a shape that repeats) replaced by what it names. */
  const argumentsOf = (name: string): Record<string, any> => {
    const { properties, $defs } = byName(name).inputSchema as {
      properties: Record<string, any>;
      $defs?: Record<string, any>;
    };
    return Object.fromEntries(
      Object.entries(properties).map(([key, schema]) => {
        const ref = typeof schema.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(schema.$ref) : null;
        return [key, ref ? $defs![ref[1]] : schema];
      }),
    );
  };

  it('advertises the spec limits and enums in the schemas', () => {
    const create = argumentsOf('service_create_content');
    expect(create.caption).toMatchObject({ type: 'string', minLength: 1, maxLength: 4000 });
    expect(create.hashtags).toMatchObject({ type: 'array', maxItems: 50 });
    expect(create.media_urls).toMatchObject({ type: 'array', maxItems: 20 });
    expect(create.target_platforms).toMatchObject({ type: 'array', maxItems: 10 });
    expect(create.content_type.enum.sort()).toEqual(
      [
        'text_only',
        'single_image',
        'slideshow',
        'reel',
        'talking_head',
        'video_hook',
        'video_hook_demo',
        'carousel',
      ].sort(),
    );
    expect(create.status.enum.sort()).toEqual(['approved', 'draft', 'pending_review', 'scheduled']);
    const update = argumentsOf('service_update_content');
    expect(update.status.enum.sort()).toEqual(['approved', 'draft', 'pending_review', 'rejected', 'scheduled']);
    const list = argumentsOf('service_list_content');
    expect(list.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(list.cursor).toMatchObject({ type: 'string' });
    expect(list.content_type.enum).toHaveLength(8);
  });
});
