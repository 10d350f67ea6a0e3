import type Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { campaigns, content, events, idempotencyKeys } from '../../db/schema/index.ts';
import { claimIdempotencyKey } from '../../src/core/idempotency.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { connectMcp, useMcpTestbed } from '../helpers/mcp.ts';
import { onSqliteOnly } from '../helpers/sqlite-only.ts';
import { connectAccounts } from '../helpers/publishing.ts';
import { callTool, toolError, toolResult } from '../helpers/tool-calls.ts';
import { sqliteOf } from '../../db/client.ts';

const MINUTE = 60_000;

/**
 * Counts the write transactions committed on `db` while `during` runs: each COMMIT, and each write
 * statement run outside a transaction (SQLite commits it on its own). Read through better-sqlite3's
 * Statement methods, which every query (drizzle's and the transaction runner's) goes through.
 */
async function writeTransactions(db: Database.Database, during: () => Promise<unknown>): Promise<number> {
  const proto = Object.getPrototypeOf(db.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  const originals = { run: proto.run!, get: proto.get!, all: proto.all! };
  let commits = 0;
  for (const [name, original] of Object.entries(originals)) {
    proto[name] = function (this: Database.Statement, ...args: unknown[]) {
      if (this.database === db) {
        if (this.source === 'COMMIT') commits += 1;
        else if (!this.reader && !db.inTransaction && !/^(BEGIN|SAVEPOINT|RELEASE|ROLLBACK)/.test(this.source))
          commits += 1;
      }
      return original.apply(this, args);
    };
  }
  try {
    await during();
  } finally {
    Object.assign(proto, originals);
  }
  return commits;
}
const HOUR = 60 * MINUTE;

describe('idempotency_key on the creating tools', () => {
  const bed = useMcpTestbed();

  const rest = (path: string, body: unknown, key: string) =>
    call(bed.server, 'POST', path, { headers: { ...bed.ws.headers, 'idempotency-key': key }, body });
  const contentRows = async () => bed.runtime.db.select().from(content).all();
  const createdEvents = async () =>
    (await bed.runtime.db.select().from(events).where(eq(events.type, 'content.created')).all()).length;

  it('two service_create_content calls with one key give one item, the same id', async () => {
    const args = { caption: 'Launch day', idempotency_key: 'create-1' };
    const first = await toolResult(bed.client, 'service_create_content', args);
    const again = await toolResult(bed.client, 'service_create_content', args);
    expect(again).toEqual(first);
    expect((await contentRows()).map((row) => row.id)).toEqual([first.id]);
    expect(await createdEvents()).toBe(1);
    // The key is not part of the item.
    expect(first).not.toHaveProperty('idempotency_key');
  });

  // Counted through better-sqlite3's statements. On PostgreSQL a group commit is one transaction per
  // piece of work by construction, and a shared server has no per-database count of commits to read.
  onSqliteOnly.it(
    'a keyed create and its replay each commit as many write transactions as an unkeyed create, on SQLite',
    async () => {
      const db = sqliteOf(bed.runtime.db);
      const create = (args: Record<string, unknown>) => toolResult(bed.client, 'service_create_content', args);
      // The first call of a key also records the key's last use, once: count after it.
      await create({ caption: 'Warm-up' });
      const unkeyed = await writeTransactions(db, () => create({ caption: 'No key' }));
      let first: unknown;
      const keyed = await writeTransactions(db, async () => {
        first = await create({ caption: 'With a key', idempotency_key: 'tx-1' });
      });
      const replay = await writeTransactions(db, async () => {
        expect(await create({ caption: 'With a key', idempotency_key: 'tx-1' })).toEqual(first);
      });
      // The claim, the item and the stored answer commit together, in the operation's own group commit.
      expect({ unkeyed, keyed, replay }).toEqual({ unkeyed: 1, keyed: 1, replay: 1 });
      expect(await contentRows()).toHaveLength(3);
      expect(await createdEvents()).toBe(3);
    },
  );

  it('the same key with other arguments is idempotency_key_reused, and creates nothing', async () => {
    await toolResult(bed.client, 'service_create_content', { caption: 'First', idempotency_key: 'create-2' });
    await toolError(
      bed.client,
      'service_create_content',
      { caption: 'Second', idempotency_key: 'create-2' },
      'idempotency_key_reused',
    );
    expect(await contentRows()).toHaveLength(1);
  });

  it('a key first used over REST replays over MCP: same id, no second item', async () => {
    const created = await rest('/api/v1/content', { caption: 'From REST', hashtags: ['a'] }, 'shared-1');
    expect(created.status).toBe(201);
    // Another field order: the same call.
    const replayed = await toolResult(bed.client, 'service_create_content', {
      hashtags: ['a'],
      idempotency_key: 'shared-1',
      caption: 'From REST',
    });
    expect(replayed).toEqual(created.body);
    expect(await contentRows()).toHaveLength(1);
    expect(await createdEvents()).toBe(1);
  });

  it('a key first used over MCP replays over REST with the route status, path ids included', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['twitter']);
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    const queued = await toolResult(bed.client, 'service_publish_content', { id: item.id, idempotency_key: 'pub-1' });
    const replayed = await rest(`/api/v1/content/${item.id}/publish`, {}, 'pub-1');
    expect(replayed.status).toBe(202);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(queued);
    expect(await bed.runtime.db.select().from(events).where(eq(events.type, 'content.approved')).all()).toHaveLength(1);

    // The same key for another item is another call.
    const other = await makeContent(bed.runtime, bed.ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    const reused = await rest(`/api/v1/content/${other.id}/publish`, {}, 'pub-1');
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
  });

  it('replays a client error through both doors, each with its own shape', async () => {
    const failed = await toolError(
      bed.client,
      'service_create_content',
      { caption: '', idempotency_key: 'bad-1' },
      'invalid_body',
    );
    const again = await toolError(
      bed.client,
      'service_create_content',
      { caption: '', idempotency_key: 'bad-1' },
      'invalid_body',
    );
    expect(again).toEqual(failed);
    const overRest = await rest('/api/v1/content', { caption: '' }, 'bad-1');
    expect(overRest.status).toBe(400);
    expect(overRest.headers.get('idempotent-replayed')).toBe('true');
    expect(overRest.body).toEqual({ error: failed });
  });

  it('replays a call repeated late within the 24 hours (at 23h59m), and runs it anew from 24 hours on', async () => {
    const args = { caption: 'Late retry', idempotency_key: 'late-1' };
    const first = await toolResult(bed.client, 'service_create_content', args);
    bed.runtime.clock.advance(HOUR * 24 - MINUTE);
    expect(await toolResult(bed.client, 'service_create_content', args)).toEqual(first);
    bed.runtime.clock.advance(MINUTE - 1);
    expect(await toolResult(bed.client, 'service_create_content', args)).toEqual(first);
    expect((await contentRows()).map((row) => row.id)).toEqual([first.id]);

    bed.runtime.clock.advance(1);
    const anew = await toolResult(bed.client, 'service_create_content', args);
    expect(anew.id).not.toBe(first.id);
    expect(await contentRows()).toHaveLength(2);
    expect(await createdEvents()).toBe(2);
    // The key now stands for the second call, for another 24 hours.
    bed.runtime.clock.advance(HOUR);
    expect(await toolResult(bed.client, 'service_create_content', args)).toEqual(anew);
  });

  it('scopes a key to the workspace: the same key and arguments in another workspace are another call', async () => {
    const other = await makeWorkspace(bed.runtime, { name: 'Other' });
    const otherClient = await connectMcp(bed.runtime, other.apiKey);
    try {
      const args = { caption: 'Same words', idempotency_key: 'shared-key' };
      const mine = await toolResult(bed.client, 'service_create_content', args);
      const theirs = await toolResult(otherClient, 'service_create_content', args);
      expect(theirs.id).not.toBe(mine.id);
      const rows = await contentRows();
      expect(rows.find((row) => row.id === mine.id)?.workspaceId).toBe(bed.ws.workspace.id);
      expect(rows.find((row) => row.id === theirs.id)?.workspaceId).toBe(other.workspace.id);
      // Each workspace replays its own answer.
      expect(await toolResult(otherClient, 'service_create_content', args)).toEqual(theirs);
      expect(await toolResult(bed.client, 'service_create_content', args)).toEqual(mine);
      expect(await contentRows()).toHaveLength(2);
      // The key's other arguments are refused where it was used; a key used only in one workspace is free in the other.
      await toolError(
        otherClient,
        'service_create_content',
        { caption: 'Other words', idempotency_key: 'shared-key' },
        'idempotency_key_reused',
      );
      const fresh = await toolResult(otherClient, 'service_create_content', {
        caption: 'Other words',
        idempotency_key: 'only-theirs',
      });
      expect(
        await toolResult(bed.client, 'service_create_content', {
          caption: 'Other words',
          idempotency_key: 'only-theirs',
        }),
      ).not.toEqual(fresh);
      expect(await contentRows()).toHaveLength(4);
    } finally {
      await otherClient.close();
    }
  });

  it('answers idempotency_conflict while the first call runs', async () => {
    await claimIdempotencyKey(bed.runtime, {
      workspaceId: bed.ws.workspace.id,
      key: 'busy-1',
      keyField: 'idempotency_key',
      operation: 'createContent',
      input: { caption: 'x' },
    });
    await toolError(
      bed.client,
      'service_create_content',
      { caption: 'x', idempotency_key: 'busy-1' },
      'idempotency_conflict',
    );
    expect(await contentRows()).toHaveLength(0);
  });

  it('refuses a key that is no string of 1 to 255 characters, naming the argument', async () => {
    for (const key of ['', 'k'.repeat(256), 42]) {
      const error = await toolError(
        bed.client,
        'service_create_content',
        { caption: 'x', idempotency_key: key },
        'invalid_body',
      );
      expect(error.details.fieldErrors.idempotency_key).toBeDefined();
    }
    expect(await contentRows()).toHaveLength(0);
  });

  it('keys service_create_campaign and service_launch_campaign too', async () => {
    const args = { name: 'Spring', idempotency_key: 'camp-1' };
    const first = await toolResult(bed.client, 'service_create_campaign', args);
    expect(await toolResult(bed.client, 'service_create_campaign', args)).toEqual(first);
    expect(await bed.runtime.db.select().from(campaigns).all()).toHaveLength(1);
    const launch = await callTool(bed.client, 'service_launch_campaign', { id: first.id, idempotency_key: 'launch-1' });
    const relaunch = await callTool(bed.client, 'service_launch_campaign', {
      id: first.id,
      idempotency_key: 'launch-1',
    });
    expect(relaunch).toEqual(launch);
  });

  it('takes a null idempotency_key as none, as agents send optional fields', async () => {
    await toolResult(bed.client, 'service_create_content', { caption: 'One', idempotency_key: null });
    await toolResult(bed.client, 'service_create_content', { caption: 'One', idempotency_key: null });
    expect(await contentRows()).toHaveLength(2);
    expect(await bed.runtime.db.select().from(idempotencyKeys).all()).toHaveLength(0);
  });

  it('does not store a dry run under its key: a later preview sees the item anew, and the real publish takes the key', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    const args = { id: item.id, dry_run: true, idempotency_key: 'preview-1' };
    const before = await toolResult(bed.client, 'service_publish_content', args);
    expect(before.ready).toBe(false);
    await connectAccounts(bed.runtime, bed.ws.workspace, ['twitter']);
    const after = await toolResult(bed.client, 'service_publish_content', args);
    expect(after.ready).toBe(true);
    expect(await bed.runtime.db.select().from(idempotencyKeys).all()).toHaveLength(0);
    const queued = await toolResult(bed.client, 'service_publish_content', {
      id: item.id,
      idempotency_key: 'preview-1',
    });
    expect(queued.publish_queued).toBe(true);
    const replayed = await rest(`/api/v1/content/${item.id}/publish`, {}, 'preview-1');
    expect(replayed.status).toBe(202);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    // dry_run null is no dry run: the real call, queued (202).
    const other = await makeContent(bed.runtime, bed.ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    expect((await rest(`/api/v1/content/${other.id}/publish`, { dry_run: null }, 'null-dry-run')).status).toBe(202);
  });

  it('a tool without the flag ignores an idempotency_key argument, as any unknown argument', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace);
    await toolResult(bed.client, 'service_update_content', { id: item.id, caption: 'New', idempotency_key: 'u-1' });
    expect(await bed.runtime.db.select().from(idempotencyKeys).all()).toHaveLength(0);
  });
});
