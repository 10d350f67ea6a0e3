DROP INDEX `webhook_jobs_webhook_created_idx`;--> statement-breakpoint
CREATE INDEX `webhook_jobs_webhook_created_idx` ON `webhook_jobs` (`webhook_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `events` ADD `xact` integer;--> statement-breakpoint
CREATE INDEX `events_commit_order_idx` ON `events` (`xact`,`seq`) WHERE "events"."xact" is not null;--> statement-breakpoint
ALTER TABLE `webhook_fanout_cursor` ADD `last_xact` integer DEFAULT 0 NOT NULL;