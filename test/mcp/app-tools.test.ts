import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeX, type FakeX } from '../../fakes/x.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { APP_TOOLS } from '../../src/mcp/apps/app-tools.ts';
import { TOOLS } from '../../tools/index.ts';
import { connectFakeXAccount } from '../helpers/fake-x-account.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { callTool } from '../helpers/tool-calls.ts';

/**
 * The MCP App's buttons call the content intents through view-only tools: served, never listed, and
 * judged by the same policy as the dashboard. Posts go to the fake X over its real HTTP API.
 */
const env: Record<string, string> = {};
let x: FakeX;
beforeAll(async () => {
  x = await startFakeX();
  Object.assign(env, fakePlatformEnvironment({ x }));
});
afterAll(() => x?.close());

describe('MCP App view-only tools', () => {
  const bed = useRestTestbed({ env });

  async function connect(token = bed.ws.apiKey, path = '/mcp'): Promise<Client> {
    const client = new Client(
      { name: 'app-host', version: '1.0.0' },
      {
        versionNegotiation: { mode: 'auto' },
        capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } as object,
      },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(bed.server.url + path), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  const publishRun = () => drain(bed.runtime, publishingJob(bed.runtime));

  it('keeps tools/list at the twenty tools of the contract, and serves the view-only tools by name', async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
      expect(tools.some((tool) => tool.name.startsWith('app_'))).toBe(false);
      const created = await callTool(client, 'service_create_content', { caption: 'Held', status: 'pending_review' });
      const rejected = await callTool(client, 'app_reject_content', {
        id: created.structuredContent.id,
        reason: 'Off brand',
      });
      expect(rejected.structuredContent).toMatchObject({ status: 'rejected', review_note: 'Off brand' });
    } finally {
      await client.close();
    }
    // The read-only door serves none of them, and its views are told every action is refused.
    const readOnly = await connect(bed.ws.apiKey, '/mcp/readonly');
    try {
      const refused = (await readOnly
        .callTool({ name: APP_TOOLS[0]!.name, arguments: {} })
        .catch((e: Error) => e)) as Error;
      expect(refused.message).toMatch(/Unknown tool app_approve_content/);
      const listed = (await readOnly.callTool({ name: 'service_list_content', arguments: {} })) as any;
      const verdicts = Object.values(listed._meta.ui.allowed_actions).flat() as any[];
      expect(verdicts.length).toBeGreaterThan(0);
      expect(verdicts.every((verdict) => verdict.allowed === false && verdict.code === 'insufficient_scope')).toBe(
        true,
      );
    } finally {
      await readOnly.close();
    }
  });

  it('"Approve and schedule" on an item planned a minute ahead posts once to X at that time', async () => {
    await connectFakeXAccount(bed.runtime, bed.ws.workspace, x);
    const client = await connect();
    try {
      const at = new Date(bed.runtime.clock.now().getTime() + 60_000).toISOString();
      const caption = `Planned a minute ahead ${crypto.randomUUID()}`;
      const item = await callTool(client, 'service_create_content', {
        caption,
        content_type: 'text_only',
        target_platforms: ['twitter'],
        status: 'pending_review',
        scheduled_for: at,
      });
      const got = (await client.callTool({
        name: 'service_get_content',
        arguments: { id: item.structuredContent.id },
      })) as any;
      const offered = got._meta.ui.allowed_actions[item.structuredContent.id].filter((v: any) => v.allowed);
      expect(offered.map((v: any) => v.action)).toEqual(['approve_and_schedule', 'reject']);

      const approved = (await client.callTool({
        name: 'app_approve_content',
        arguments: { id: item.structuredContent.id, then: 'schedule' },
      })) as any;
      expect(approved.structuredContent).toMatchObject({
        status: 'scheduled',
        publish_queued: true,
        scheduled_for: at,
      });
      expect(approved._meta.ui.allowed_actions[item.structuredContent.id].filter((v: any) => v.allowed)).toEqual([
        { action: 'schedule', allowed: true },
        { action: 'move', allowed: true },
      ]);
      expect(await publishRun()).toEqual([]);
      expect(x.posts.filter((post) => post.text === caption)).toHaveLength(0);
      bed.runtime.clock.advance(60_000);
      expect(await publishRun()).toEqual(['published']);
      expect(await publishRun()).toEqual([]);
      expect(x.posts.filter((post) => post.text === caption)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('"Approve and publish now" posts on the next publishing run', async () => {
    await connectFakeXAccount(bed.runtime, bed.ws.workspace, x);
    const client = await connect();
    try {
      const caption = `Right away ${crypto.randomUUID()}`;
      const item = await callTool(client, 'service_create_content', {
        caption,
        content_type: 'text_only',
        target_platforms: ['twitter'],
        status: 'pending_review',
      });
      const queued = await callTool(client, 'app_approve_content', {
        id: item.structuredContent.id,
        then: 'publish_now',
      });
      expect(queued.structuredContent).toMatchObject({ status: 'approved', publish_queued: true });
      expect(await publishRun()).toEqual(['published']);
      expect(x.posts.filter((post) => post.text === caption)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('the author under approver_must_differ is offered no approval, told why, and refused if they call it', async () => {
    await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { approver_must_differ: true } });
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const { accessToken } = await issueTestToken(
      bed.runtime,
      bed.ws.workspace.id,
      ['read', 'write', 'publish'],
      'Author',
      person.userId,
    );
    const client = await connect(accessToken);
    try {
      const own = (await client.callTool({
        name: 'service_create_content',
        arguments: { caption: 'Mine', target_platforms: ['twitter'], status: 'pending_review' },
      })) as any;
      const verdicts = own._meta.ui.allowed_actions[own.structuredContent.id] as any[];
      for (const action of ['approve_and_schedule', 'approve_and_publish_now', 'approve_only']) {
        expect(verdicts.find((v) => v.action === action).allowed).toBe(false);
      }
      expect(verdicts.find((v) => v.action === 'approve_and_publish_now')).toMatchObject({
        code: 'forbidden',
        reason: expect.stringMatching(/differ from the author/),
      });
      const listed = (await client.callTool({
        name: 'service_list_content',
        arguments: { status: 'pending_review' },
      })) as any;
      expect(
        (listed._meta.ui.allowed_actions[own.structuredContent.id] as any[])
          .filter((v) => v.allowed)
          .map((v) => v.action),
      ).toEqual(['reject']);
      const refused = await callTool(client, 'app_approve_content', {
        id: own.structuredContent.id,
        then: 'publish_now',
      });
      expect(refused.isError).toBe(true);
      expect(refused.textJson.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/differ/) });
    } finally {
      await client.close();
    }
  });
});
