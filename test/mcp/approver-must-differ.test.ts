import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { call, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { connectAccounts, sandboxPostsFor } from '../helpers/publishing.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

const LATER = '2026-03-10T13:00:00.000Z';
const POST = { caption: 'From the assistant', content_type: 'text_only', target_platforms: ['linkedin'] };

/** An MCP client acting for a new person of the bed's workspace with `role`. */
async function assistantOf(bed: RestTestbed, role: Role) {
  const person = await makePerson(bed.runtime, bed.ws.workspace.id, role);
  const { accessToken } = await issueTestToken(
    bed.runtime,
    bed.ws.workspace.id,
    ['read', 'write', 'publish'],
    `Assistant of an ${role}`,
    person.userId,
  );
  return connectMcp(bed.runtime, accessToken);
}

describe('MCP: approver_must_differ holds on every tool that approves', () => {
  const bed = useRestTestbed({ env: baseEnv });

  it("an author's assistant cannot create as approved or scheduled, schedule, or publish; another person's can", async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['linkedin']);
    await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { approver_must_differ: true } });
    const author = await assistantOf(bed, 'approver');
    let other: Awaited<ReturnType<typeof assistantOf>> | undefined;
    try {
      for (const args of [
        { ...POST, status: 'approved' },
        { ...POST, status: 'scheduled', scheduled_for: LATER },
      ]) {
        const refused = await toolError(author, 'service_create_content', args, 'forbidden');
        expect(refused.message).toMatch(/differ from the author/);
      }
      const own = await toolResult(author, 'service_create_content', { ...POST, status: 'pending_review' });
      await toolError(
        author,
        'service_update_content',
        { id: own.id, status: 'scheduled', scheduled_for: LATER },
        'forbidden',
      );
      await toolError(author, 'service_publish_content', { id: own.id }, 'forbidden');
      await toolError(author, 'service_publish_content', { id: own.id, dry_run: true }, 'forbidden');
      bed.runtime.clock.advance(61 * 60_000);
      expect(await drain(bed.runtime, publishingJob(bed.runtime))).toEqual([]);
      expect(await sandboxPostsFor(bed.runtime, own.id)).toEqual([]);

      // Another person schedules the same item, and it goes out (a new token: an hour has passed).
      other = await assistantOf(bed, 'approver');
      const scheduled = await toolResult(other, 'service_update_content', {
        id: own.id,
        status: 'scheduled',
        scheduled_for: bed.runtime.clock.now().toISOString(),
      });
      expect(scheduled.status).toBe('scheduled');
      expect(await drain(bed.runtime, publishingJob(bed.runtime))).toEqual(['published']);
      expect(await sandboxPostsFor(bed.runtime, own.id)).toHaveLength(1);
    } finally {
      await author.close();
      await other?.close();
    }
  });
});
