import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/core/accounts/api-keys.ts';
import { makeContent, makeKey, makeWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { connectMcp, useMcpTestbed } from '../helpers/mcp.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { callTool, toolError, toolResult } from '../helpers/tool-calls.ts';

const CONTENT_TOOLS = [
  'service_list_content',
  'service_get_content',
  'service_create_content',
  'service_update_content',
  'service_delete_content',
  'service_publish_content',
];
const BRAND_PROFILE_TOOLS = ['service_get_brand_profile', 'service_update_brand_profile'];
const CAMPAIGN_TOOLS = [
  'service_list_campaigns',
  'service_get_campaign',
  'service_create_campaign',
  'service_update_campaign',
];
const TEMPLATE_TOOLS = ['service_list_templates'];
const MEDIA_TOOLS = ['service_list_media'];
/** Tools that check the subscription and the plan (service_get_account answers despite both). */
const PLAN_CHECKED_TOOLS = [
  ...BRAND_PROFILE_TOOLS,
  ...CONTENT_TOOLS,
  ...CAMPAIGN_TOOLS,
  ...TEMPLATE_TOOLS,
  ...MEDIA_TOOLS,
];
const ALL_TOOLS = ['service_get_account', ...PLAN_CHECKED_TOOLS];

/** Arguments that would succeed for each tool, so only the key or the plan can make a call fail. */
const validArgs = (id: string): Record<string, Record<string, unknown>> => ({
  service_get_account: {},
  service_get_brand_profile: {},
  service_update_brand_profile: { brand_name: 'Acme' },
  service_list_content: {},
  service_get_content: { id },
  service_create_content: { caption: 'Hello' },
  service_update_content: { id, caption: 'Changed' },
  service_delete_content: { id },
  service_publish_content: { id },
  service_list_campaigns: {},
  service_get_campaign: { id },
  service_create_campaign: { name: 'Spring' },
  service_update_campaign: { id, name: 'Renamed' },
  service_list_templates: { niche: 'fitness', source_platform: 'instagram' },
  service_list_media: { asset_type: 'image' },
});

describe('MCP tool errors carry the API code and message', () => {
  const bed = useMcpTestbed();

  /** The REST error for the same request, to compare code, message and details with. */
  const restError = async (method: string, path: string, body?: unknown) => {
    const res = await call(bed.server, method, path, { headers: bed.ws.headers, body });
    expect(res.status).toBeGreaterThanOrEqual(400);
    return res.body.error;
  };

  it('is an isError result whose text is {error:{code,message}} and that has no structuredContent', async () => {
    const outcome = await callTool(bed.client, 'service_get_content', { id: '00000000-0000-4000-8000-000000000000' });
    expect(outcome.isError).toBe(true);
    expect(outcome.textJson).toEqual({
      error: { code: 'not_found', message: expect.any(String), docs_url: 'http://127.0.0.1:3000/docs/errors' },
    });
    expect(outcome.structuredContent).toBeUndefined();
  });

  it('answers not_found on every id tool for an unknown id, like REST', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const name of [
      'service_get_content',
      'service_update_content',
      'service_delete_content',
      'service_publish_content',
    ]) {
      const error = await toolError(bed.client, name, validArgs(id)[name], 'not_found');
      expect(error.message, name).toBe((await restError('GET', `/api/v1/content/${id}`)).message);
    }
  });

  it('answers invalid_body with details.fieldErrors for a caption over 4000 characters', async () => {
    const body = { caption: 'x'.repeat(4001) };
    const error = await toolError(bed.client, 'service_create_content', body, 'invalid_body');
    expect(error.details.fieldErrors.caption).toEqual([expect.any(String)]);
    expect(error.details.formErrors).toEqual([]);
    const viaRest = await restError('POST', '/api/v1/content', body);
    expect({ code: error.code, message: error.message, details: error.details }).toEqual({
      code: viaRest.code,
      message: viaRest.message,
      details: viaRest.details,
    });
    expect((await toolResult(bed.client, 'service_list_content')).data).toEqual([]);
  });

  it('answers invalid_body for a missing caption, a naive date-time and wrongly typed fields', async () => {
    const missing = await toolError(bed.client, 'service_create_content', {}, 'invalid_body');
    expect(Object.keys(missing.details.fieldErrors)).toEqual(['caption']);

    const naive = await toolError(
      bed.client,
      'service_create_content',
      { caption: 'Hi', scheduled_for: '2026-04-01T09:00:00', status: 'scheduled' },
      'invalid_body',
    );
    expect(Object.keys(naive.details.fieldErrors)).toEqual(['scheduled_for']);

    const typed = await toolError(
      bed.client,
      'service_create_content',
      { caption: 'Hi', hashtags: 'not-a-list', media_urls: ['ftp://x.example/a.png'] },
      'invalid_body',
    );
    expect(Object.keys(typed.details.fieldErrors).sort()).toEqual(['hashtags', 'media_urls']);

    const item = await makeContent(bed.runtime, bed.ws.workspace);
    const badStatus = await toolError(
      bed.client,
      'service_update_content',
      { id: item.id, status: 'published' },
      'invalid_body',
    );
    expect(Object.keys(badStatus.details.fieldErrors)).toEqual(['status']);
    const badPublish = await toolError(
      bed.client,
      'service_publish_content',
      { id: item.id, scheduled_for: 'tomorrow' },
      'invalid_body',
    );
    expect(Object.keys(badPublish.details.fieldErrors)).toEqual(['scheduled_for']);
  });

  it('answers invalid_body for an unknown asset_type on service_list_media, as REST does', async () => {
    const error = await toolError(bed.client, 'service_list_media', { asset_type: 'audio' }, 'invalid_body');
    const rest = await restError('GET', '/api/v1/media-library?asset_type=audio');
    expect(error.message).toBe(rest.message);
    expect(error.details).toEqual(rest.details);
  });

  // Found by the fuzz suite: the SDK's own schema check threw, and it answered -32603 (internal error).
  it('answers a tools/call whose arguments are no object with invalid params (-32602), not an internal error', async () => {
    for (const args of [null, 'caption', 42, ['x']]) {
      const error = await bed.client
        .request({ method: 'tools/call', params: { name: 'service_create_content', arguments: args as never } })
        .then(
          () => undefined,
          (e: unknown) => e as ProtocolError,
        );
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error!.code).toBe(ProtocolErrorCode.InvalidParams);
      expect(error!.message).toMatch(/arguments/);
    }
    expect(await toolResult(bed.client, 'service_create_content', { caption: 'Still fine' })).toMatchObject({
      caption: 'Still fine',
    });
  });

  it('answers invalid_body when status scheduled comes without scheduled_for', async () => {
    const error = await toolError(
      bed.client,
      'service_create_content',
      { caption: 'Hi', status: 'scheduled' },
      'invalid_body',
    );
    expect(error.details.fieldErrors.scheduled_for).toHaveLength(1);
  });

  it('answers no_updates for an update with no recognised field', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace);
    const bare = await toolError(bed.client, 'service_update_content', { id: item.id }, 'no_updates');
    await toolError(bed.client, 'service_update_content', { id: item.id, colour: 'blue' }, 'no_updates');
    const viaRest = await restError('PATCH', `/api/v1/content/${item.id}`, { colour: 'blue' });
    expect({ code: bare.code, message: bare.message }).toEqual({ code: viaRest.code, message: viaRest.message });
    expect(await toolResult(bed.client, 'service_get_content', { id: item.id })).toEqual(item);
  });

  it('answers invalid_state for update, publish and delete on an archived item', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
    await toolResult(bed.client, 'service_delete_content', { id: item.id });
    await toolError(bed.client, 'service_update_content', { id: item.id, caption: 'Back?' }, 'invalid_state');
    await toolError(bed.client, 'service_publish_content', { id: item.id }, 'invalid_state');
    await toolError(bed.client, 'service_delete_content', { id: item.id }, 'invalid_state');
    const stored = await toolResult(bed.client, 'service_get_content', { id: item.id });
    expect(stored).toMatchObject({ status: 'archived', caption: item.caption, publish_queued: false });
  });

  it('answers no_target_platforms when publishing an item without target_platforms', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'approved' });
    const error = await toolError(bed.client, 'service_publish_content', { id: item.id }, 'no_target_platforms');
    const viaRest = await restError('POST', `/api/v1/content/${item.id}/publish`);
    expect({ code: error.code, message: error.message }).toEqual({ code: viaRest.code, message: viaRest.message });
    expect(await toolResult(bed.client, 'service_get_content', { id: item.id })).toEqual(item);
  });

  describe('authentication and plan', () => {
    it('answers missing_key on every tool when the client has no key', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace);
      const anonymous = await connectMcp(bed.runtime, undefined);
      for (const name of ALL_TOOLS) await toolError(anonymous, name, validArgs(item.id)[name], 'missing_key');
      expect(await toolResult(bed.client, 'service_get_content', { id: item.id })).toEqual(item);
    });

    it('answers invalid_key for an unknown key and for a key of the wrong shape', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace);
      const forged = `np_live_${'A'.repeat(38)}`;
      for (const key of [forged, `${bed.ws.apiKey.slice(0, -1)}${bed.ws.apiKey.endsWith('a') ? 'b' : 'a'}`]) {
        const stranger = await connectMcp(bed.runtime, key);
        for (const name of ALL_TOOLS) await toolError(stranger, name, validArgs(item.id)[name], 'invalid_key');
      }
      const notOurs = await connectMcp(bed.runtime, 'sk_live_abcdef');
      await toolError(notOurs, 'service_list_content', {}, 'missing_key');
    });

    it('answers invalid_key as soon as the key is revoked, on an open connection', async () => {
      const { keyId, apiKey } = await makeKey(bed.runtime, bed.ws.workspace.id);
      const keyed = await connectMcp(bed.runtime, apiKey);
      await toolResult(keyed, 'service_list_content');
      await revokeApiKey(bed.runtime, keyId);
      for (const name of ALL_TOOLS) await toolError(keyed, name, validArgs('any')[name], 'invalid_key');
      await toolResult(bed.client, 'service_list_content');
    });

    it('answers expired_key once the clock passes the key expiry', async () => {
      const { apiKey } = await makeKey(
        bed.runtime,
        bed.ws.workspace.id,
        new Date(bed.runtime.clock.now().getTime() + 60 * 60 * 1000),
      );
      const keyed = await connectMcp(bed.runtime, apiKey);
      await toolResult(keyed, 'service_get_account');
      bed.runtime.clock.advance(60 * 60 * 1000);
      for (const name of ALL_TOOLS) await toolError(keyed, name, validArgs('any')[name], 'expired_key');
    });

    for (const status of ['past_due', 'canceled'] as const) {
      it(`answers payment_required on content and brand profile tools for a ${status} workspace; service_get_account still answers`, async () => {
        const inactive = await makeWorkspace(bed.runtime, { status });
        const inactiveClient = await connectMcp(bed.runtime, inactive.apiKey);
        const item = await makeContent(bed.runtime, inactive.workspace, { target_platforms: ['twitter'] });
        for (const name of PLAN_CHECKED_TOOLS)
          await toolError(inactiveClient, name, validArgs(item.id)[name], 'payment_required');
        const account = await toolResult(inactiveClient, 'service_get_account');
        expect(account).toMatchObject({ plan_status: status, is_active: false });
        const me = await call(bed.server, 'GET', '/api/v1/me', { headers: inactive.headers });
        expect(me.status).toBe(200);
        expect(account).toEqual(me.body);
      });
    }

    it('answers plan_forbidden on content and brand profile tools for a free workspace; service_get_account still answers', async () => {
      const free = await makeWorkspace(bed.runtime, { plan: 'free' });
      const freeClient = await connectMcp(bed.runtime, free.apiKey);
      const item = await makeContent(bed.runtime, free.workspace, { target_platforms: ['twitter'] });
      for (const name of PLAN_CHECKED_TOOLS)
        await toolError(freeClient, name, validArgs(item.id)[name], 'plan_forbidden');
      const account = await toolResult(freeClient, 'service_get_account');
      expect(account).toMatchObject({ plan: 'free', is_active: true, features: { api_access: false } });
      expect(account).toEqual((await call(bed.server, 'GET', '/api/v1/me', { headers: free.headers })).body);
    });

    it('checks the subscription before the plan (past_due free workspace answers payment_required)', async () => {
      const both = await makeWorkspace(bed.runtime, { plan: 'free', status: 'past_due' });
      await toolError(await connectMcp(bed.runtime, both.apiKey), 'service_list_content', {}, 'payment_required');
    });
  });

  describe('rate limits', () => {
    it('answers rate_limit_exceeded with retry_after when the bucket is empty, and consumes nothing', async () => {
      const limited = await testRuntime({ env: { RATE_LIMIT_WRITE: '2' } });
      const lws = await makeWorkspace(limited);
      const lclient = await connectMcp(limited, lws.apiKey);
      await toolResult(lclient, 'service_create_content', { caption: 'One' });
      await toolResult(lclient, 'service_create_content', { caption: 'Two' });
      const error = await toolError(lclient, 'service_create_content', { caption: 'Three' }, 'rate_limit_exceeded');
      // The clock stands at 12:00:30; the window rolls over at 12:01:00.
      expect(error.retry_after).toBe(30);
      expect(Number.isInteger(error.retry_after)).toBe(true);
      const list = await toolResult(lclient, 'service_list_content');
      // Both were created at the same instant; the refused third left no item behind.
      expect(list.data.map((c: { caption: string }) => c.caption).sort()).toEqual(['One', 'Two']);

      limited.clock.advance(30_000);
      await toolResult(lclient, 'service_create_content', { caption: 'Three' });
      await toolResult(lclient, 'service_create_content', { caption: 'Four' });
      await toolError(lclient, 'service_update_content', { id: list.data[0].id, caption: 'x' }, 'rate_limit_exceeded');
    });

    it('takes publish calls from both the write and the publish bucket', async () => {
      const limited = await testRuntime({ env: { RATE_LIMIT_PUBLISH: '1' } });
      const lws = await makeWorkspace(limited);
      const lclient = await connectMcp(limited, lws.apiKey);
      const a = await makeContent(limited, lws.workspace, { target_platforms: ['twitter'] });
      const b = await makeContent(limited, lws.workspace, { target_platforms: ['twitter'] });
      await toolResult(lclient, 'service_publish_content', { id: a.id });
      const error = await toolError(lclient, 'service_publish_content', { id: b.id }, 'rate_limit_exceeded');
      expect(error.retry_after).toBe(30);
      expect((await toolResult(lclient, 'service_get_content', { id: b.id })).status).toBe('draft');
      await toolResult(lclient, 'service_update_content', { id: b.id, caption: 'Writes still flow' });
    });
  });
});
