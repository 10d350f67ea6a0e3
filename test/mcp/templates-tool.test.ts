import { describe, expect, it } from 'vitest';
import { call } from '../helpers/http.ts';
import { connectMcp, useMcpTestbed } from '../helpers/mcp.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** service_list_templates end to end through the SDK client: the same answers as GET /api/v1/templates. */
describe('MCP service_list_templates', () => {
  const bed = useMcpTestbed();

  const rest = async (query: string) => {
    const res = await call(bed.server, 'GET', `/api/v1/templates${query}`, { headers: bed.ws.headers });
    expect(res.status).toBe(200);
    return res.body;
  };

  it('answers what the REST route answers, with and without filters, page by page', async () => {
    const all = await toolResult(bed.client, 'service_list_templates');
    expect(all).toEqual(await rest(''));
    expect(all.data).toHaveLength(25);

    const filtered = await toolResult(bed.client, 'service_list_templates', {
      niche: 'fitness',
      source_platform: 'instagram',
      limit: 100,
    });
    expect(filtered).toEqual(await rest('?niche=fitness&source_platform=instagram&limit=100'));
    expect(filtered.data.length).toBeGreaterThan(0);
    for (const template of filtered.data) {
      expect(template.niches).toContain('fitness');
      expect(template.source_platform).toBe('instagram');
    }

    const byType = await toolResult(bed.client, 'service_list_templates', { content_type: 'talking_head', limit: 2 });
    expect(byType).toEqual(await rest('?content_type=talking_head&limit=2'));
    expect(byType.has_more).toBe(true);
    const next = await toolResult(bed.client, 'service_list_templates', {
      content_type: 'talking_head',
      limit: 2,
      cursor: byType.next_cursor,
    });
    expect(next).toEqual(await rest(`?content_type=talking_head&limit=2&cursor=${byType.next_cursor}`));
    expect(next.data.map((t: any) => t.id)).not.toContain(byType.data[0].id);
  });

  it("refuses an unknown platform with the API's invalid_body, and needs a key", async () => {
    const error = await toolError(bed.client, 'service_list_templates', { source_platform: 'myspace' }, 'invalid_body');
    const viaRest = await call(bed.server, 'GET', '/api/v1/templates?source_platform=myspace', {
      headers: bed.ws.headers,
    });
    expect({ code: error.code, message: error.message, details: error.details }).toEqual({
      code: viaRest.body.error.code,
      message: viaRest.body.error.message,
      details: viaRest.body.error.details,
    });
    const anonymous = await connectMcp(bed.runtime, undefined);
    try {
      await toolError(anonymous, 'service_list_templates', {}, 'missing_key');
    } finally {
      await anonymous.close();
    }
  });
});
