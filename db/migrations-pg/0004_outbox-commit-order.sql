DROP INDEX "webhook_jobs_webhook_created_idx";--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "xact" bigint;--> statement-breakpoint
-- Events written before the column were all committed: 0 puts them first, in seq order, where the cursor (0, last_seq) finds those not read yet.
UPDATE "events" SET "xact" = 0 WHERE "xact" IS NULL;--> statement-breakpoint
ALTER TABLE "webhook_fanout_cursor" ADD COLUMN "last_xact" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "events_commit_order_idx" ON "events" USING btree ("xact","seq") WHERE "events"."xact" is not null;--> statement-breakpoint
CREATE INDEX "webhook_jobs_webhook_created_idx" ON "webhook_jobs" USING btree ("webhook_id","created_at","id");