import { sql } from 'drizzle-orm';
import { preparedStatements, writeTransaction, type Db } from '../../../db/client.ts';
import type { EngineSql } from '../../../db/engine/store.ts';
import { campaigns, content } from '../../../db/schema/index.ts';
import { recordEvent } from '../events/record-event.ts';
import { toCampaignResource } from './serialize.ts';

/**
 * An item of a campaign is done when nothing more will happen to it without a person acting, and
 * no person is expected to: published; rejected; archived (deleted); or back in `approved`, no
 * longer queued, after a publish that every platform refused (a failed publish). Every other item
 * is still on its way to publishing: `draft` and `pending_review` await review, `approved` without
 * a publish attempt awaits its publish call, `scheduled` and a queued `approved` wait for the
 * publishing run, `publishing` is in it. The rule reads the row alone, never the clock, so the
 * moments an item becomes done are the moments it changes (see completeCampaignIfDone's callers).
 * The results are compared as text: PostgreSQL's json has no equality, and both engines keep the
 * text as it was written.
 */
const itemStillWaiting = (engine: EngineSql) => sql`not (
  ${content.status} in ('published', 'rejected', 'archived')
  or (${content.status} = 'approved' and ${content.publishQueued} = ${engine.false} and cast(${content.publishResults} as text) <> '[]')
)`;

/**
 * The campaign, if the service may complete it: active (one paused, archived or completed by a
 * person, or completed already, is never moved by the service) with its generation finished.
 */
const COMPLETABLE = sql`${campaigns.id} = ${sql.placeholder('campaignId')} and ${campaigns.status} = 'active' and ${campaigns.generatedPosts} >= ${campaigns.totalPosts}`;

const statements = preparedStatements((db) => ({
  // Read first: most calls are for campaigns still generating or no longer active, and this spares
  // them the walk through the items.
  completable: db.select({ id: campaigns.id }).from(campaigns).where(COMPLETABLE).prepare(),
  // The campaign's items through content_campaign_slot_idx; stops at the first still waiting.
  itemStillWaiting: db
    .select({ id: content.id })
    .from(content)
    .where(sql`${content.campaignId} = ${sql.placeholder('campaignId')} and ${itemStillWaiting(db.$store.sql)}`)
    .limit(1)
    .prepare(),
  complete: db
    .update(campaigns)
    .set({ status: 'completed', updatedAt: sql`${sql.placeholder('now')}` })
    .where(COMPLETABLE)
    .returning()
    .prepare(),
}));

/**
 * Moves an active campaign to `completed` once its generation is finished (`generated_posts` has
 * reached `total_posts`) and none of its items is still waiting to publish, and records
 * `campaign.completed` with the campaign as it now is, in the same transaction (joined when one is
 * open, as at every caller). Called where either condition can become true: generation ending,
 * an item's publish finishing, an item updated or deleted. The update's own condition makes it
 * happen once: a second call finds the campaign completed already. Answers whether it completed.
 */
export async function completeCampaignIfDone(db: Db, campaignId: string | null, now: Date): Promise<boolean> {
  if (campaignId === null) return false;
  return writeTransaction(db, async () => {
    const { completable, itemStillWaiting, complete } = statements(db);
    if (!(await completable.get({ campaignId })) || (await itemStillWaiting.get({ campaignId }))) return false;
    const row = await complete.get({ campaignId, now: now.getTime() });
    if (!row) return false;
    await recordEvent(db, {
      workspaceId: row.workspaceId,
      type: 'campaign.completed',
      data: { campaign: toCampaignResource(row) },
      at: now,
    });
    return true;
  });
}
