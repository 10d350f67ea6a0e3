-- Deliveries claimed one by one under the old per-job leases go back to the queue: whoever holds their
-- subscription next sends them again (delivery is at least once).
UPDATE `webhook_jobs` SET `state` = 'queued' WHERE `state` = 'delivering';--> statement-breakpoint
DROP INDEX `webhook_jobs_due_idx`;--> statement-breakpoint
DROP INDEX `webhook_jobs_lease_idx`;--> statement-breakpoint
ALTER TABLE `webhook_jobs` DROP COLUMN `lease_token`;--> statement-breakpoint
ALTER TABLE `webhook_jobs` DROP COLUMN `lease_expires_at`;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `lease_token` text;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `lease_expires_at` integer;