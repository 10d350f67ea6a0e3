import { beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { connectMcp, useMcpTestbed } from '../helpers/mcp.ts';
import { HISTORY_NOW, recordPublishRun, seedKnownHistory } from '../helpers/publish-history.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** service_get_analytics end to end through the SDK client, against the REST route's JSON. */
describe('MCP service_get_analytics', () => {
  const bed = useMcpTestbed({ env: baseEnv, start: HISTORY_NOW });
  let other: TestWorkspace;
  const rest = (query: string, as: TestWorkspace = bed.ws) =>
    call(bed.server, 'GET', `/api/v1/analytics/overview${query}`, { headers: as.headers });

  beforeEach(async () => {
    other = await makeWorkspace(bed.runtime);
    await seedKnownHistory(bed.runtime, bed.ws.workspace, other.workspace);
  });

  it('answers what GET /analytics/overview answers, by default and for a given days', async () => {
    const byDefault = await toolResult(bed.client, 'service_get_analytics');
    expect(byDefault).toEqual((await rest('')).body);
    expect(byDefault).toMatchObject({ object: 'analytics_overview', days: 30, totals: { published: 4, failed: 2 } });
    expect(byDefault.daily).toHaveLength(30);

    const twoDays = await toolResult(bed.client, 'service_get_analytics', { days: 2 });
    expect(twoDays).toEqual((await rest('?days=2')).body);
    expect(twoDays).toEqual({
      object: 'analytics_overview',
      days: 2,
      period_start: '2026-03-09T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 2, failed: 2 },
      platforms: [
        { platform: 'facebook', published: 0, failed: 1 },
        { platform: 'instagram', published: 0, failed: 2 },
        { platform: 'linkedin', published: 1, failed: 2 },
        { platform: 'twitter', published: 3, failed: 1 },
      ],
      daily: [
        { date: '2026-03-09', published: 1, failed: 1 },
        { date: '2026-03-10', published: 1, failed: 1 },
      ],
    });
  });

  it('caps days at the plan history and says the days used', async () => {
    const starter = await makeWorkspace(bed.runtime, { plan: 'starter' });
    await recordPublishRun(bed.runtime, starter.workspace, {
      finishedAt: '2026-02-09T00:00:00.000Z',
      platforms: { tiktok: 'unknown' },
    });
    const starterClient = await connectMcp(bed.runtime, starter.apiKey);
    try {
      const result = await toolResult(starterClient, 'service_get_analytics', { days: 365 });
      expect(result).toMatchObject({
        days: 30,
        period_start: '2026-02-09T00:00:00.000Z',
        totals: { published: 0, failed: 1 },
        platforms: [{ platform: 'tiktok', published: 0, failed: 1 }],
      });
      expect(result.daily).toHaveLength(30);
    } finally {
      await starterClient.close();
    }
  });

  it('answers invalid_body with details.fieldErrors.days for days out of range or not whole, as REST does', async () => {
    for (const days of [0, 366, -5, 2.5, 'abc']) {
      const error = await toolError(bed.client, 'service_get_analytics', { days }, 'invalid_body');
      expect(Object.keys(error.details.fieldErrors), String(days)).toEqual(['days']);
      const viaRest = await rest(`?days=${days}`);
      expect(viaRest.status).toBe(400);
      expect(error.details).toEqual(viaRest.body.error.details);
    }
  });

  it('shows each workspace only its own history', async () => {
    const otherClient = await connectMcp(bed.runtime, other.apiKey);
    try {
      const theirs = await toolResult(otherClient, 'service_get_analytics', { days: 30 });
      expect(theirs.totals).toEqual({ published: 2, failed: 1 });
      expect(theirs).toEqual((await rest('?days=30', other)).body);
      expect((await toolResult(bed.client, 'service_get_analytics', { days: 30 })).totals).toEqual({
        published: 4,
        failed: 2,
      });
    } finally {
      await otherClient.close();
    }
  });

  it('refuses a call without a key, and a workspace whose plan has no API access', async () => {
    const anonymous = await connectMcp(bed.runtime, undefined);
    const free = await makeWorkspace(bed.runtime, { plan: 'free' });
    const freeClient = await connectMcp(bed.runtime, free.apiKey);
    try {
      await toolError(anonymous, 'service_get_analytics', {}, 'missing_key');
      await toolError(freeClient, 'service_get_analytics', { days: 7 }, 'plan_forbidden');
    } finally {
      await anonymous.close();
      await freeClient.close();
    }
  });

  it('advertises days as an optional integer from 1 to 365, default 30, and is read-only', async () => {
    const { tools } = await bed.client.listTools();
    const tool = tools.find((t) => t.name === 'service_get_analytics');
    expect(tool).toBeDefined();
    expect(tool!.inputSchema.required ?? []).toEqual([]);
    expect((tool!.inputSchema.properties as Record<string, unknown>).days).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 365,
      default: 30,
    });
    expect(tool!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    expect(tool!.description).toMatch(/analytics_history_days/);
  });
});
