-- The subscription's index also orders its jobs by age (the event's time), so maintenance prunes finished
-- jobs past WEBHOOK_LOG_RETENTION_DAYS in short batches without walking the rest.
DROP INDEX `webhook_jobs_webhook_idx`;--> statement-breakpoint
CREATE INDEX `webhook_jobs_webhook_created_idx` ON `webhook_jobs` (`webhook_id`,`created_at`);