ALTER TABLE `content` ADD `campaign_slot` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `content_campaign_slot_idx` ON `content` (`campaign_id`,`campaign_slot`) WHERE "content"."campaign_id" is not null;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `generation_due_at` integer;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `generation_lease_token` text;--> statement-breakpoint
CREATE INDEX `campaigns_generation_due_idx` ON `campaigns` (`generation_due_at`) WHERE "campaigns"."generation_due_at" is not null;