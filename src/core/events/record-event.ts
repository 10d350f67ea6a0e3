import { sql } from 'drizzle-orm';
import { preparedStatements, SerializedJson, type Db } from '../../../db/client.ts';
import { prepareSql } from '../../../db/engine/session.ts';
import { events } from '../../../db/schema/index.ts';
import { prefixedId } from '../ids.ts';

/**
 * The eleven subscribable names. One is reserved, accepted in subscriptions but never emitted:
 * `campaign.paused`. `campaign.completed` is emitted when the service completes a campaign
 * (campaigns/completion.ts), `social_account.connected` when an OAuth connection completes
 * (social-accounts/connect-storage.ts).
 */
export const EVENT_TYPES = [
  'content.created',
  'content.updated',
  'content.approved',
  'content.published',
  'content.publish_failed',
  'content.deleted',
  'campaign.launched',
  'campaign.completed',
  'campaign.paused',
  'social_account.connected',
  'social_account.disconnected',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event to the outbox. Call it inside the transaction of the change that caused it, so
 * the change and its event commit together or not at all. `id` and serialised `data` come from
 * campaign generation, which prepares its events on the draft thread.
 */
export async function recordEvent(db: Db, event: NewEvent): Promise<string> {
  const id = event.id ?? prefixedId('evt');
  await statements(db).insert.run(insertValues(id, event));
  heard(db);
  return id;
}

/** As recordEvent, for many events written together (a batch of generated posts), in order, as one promise. */
export async function recordEvents(db: Db, list: readonly (NewEvent & { id: string })[]): Promise<void> {
  await statements(db).insert.runEach(list.map((event) => insertValues(event.id, event)));
  heard(db);
}

/** An event to record: its id made here when not given. */
export interface NewEvent {
  id?: string;
  workspaceId: string;
  type: EventType;
  data: Record<string, unknown> | SerializedJson;
  at: Date;
}

const insertValues = (id: string, event: NewEvent) => ({
  id,
  workspaceId: event.workspaceId,
  type: event.type,
  data: event.data instanceof SerializedJson ? event.data.text : events.data.mapToDriverValue(event.data),
  createdAt: event.at.getTime(),
});

/** Tells the listeners once what was written can be read (on PostgreSQL, after the commit). */
function heard(db: Db): void {
  const set = listeners.get(db);
  if (set?.size)
    db.$store.whenCommitted(() => {
      for (const listener of set) listener();
    });
}

const listeners = new WeakMap<Db, Set<() => void>>();

/**
 * Hears every event this process writes to `db`, so enqueueing webhook deliveries starts without a poll.
 * Called once the event can be read outside its transaction (Store.whenCommitted: at once on SQLite,
 * where that may still be inside it): a listener must only schedule work for a later turn of the
 * event loop. Returns the function that stops listening.
 */
export function onEventRecorded(db: Db, listener: () => void): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Raw and prepared, as insertRow does (thousands of events a second), with the writing transaction
 * given by the engine: insertRow binds every column, and xact is the engine's to fill
 * (db.$store.sql.writingTransaction; seq is the engine's identity).
 */
const statements = preparedStatements((db) => ({
  insert: prepareSql<never, { id: string; workspaceId: string; type: string; data: unknown; createdAt: number }>(
    db,
    sql`insert into "events" ("id", "workspace_id", "type", "data", "created_at", "xact")
      values (${sql.placeholder('id')}, ${sql.placeholder('workspaceId')}, ${sql.placeholder('type')},
        ${sql.placeholder('data')}, ${sql.placeholder('createdAt')}, ${db.$store.sql.writingTransaction})`,
  ),
}));
