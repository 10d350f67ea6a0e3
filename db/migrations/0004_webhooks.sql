CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`job_id` text,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`attempt` integer NOT NULL,
	`status` text NOT NULL,
	`status_code` integer NOT NULL,
	`response_body` text,
	`duration_ms` integer NOT NULL,
	`delivered_at` integer NOT NULL,
	`is_test` integer NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook_time_idx` ON `webhook_deliveries` (`webhook_id`,`delivered_at`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_fanout_cursor` (
	`id` integer PRIMARY KEY NOT NULL,
	`last_seq` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `webhook_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`event_id` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_token` text,
	`lease_expires_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_jobs_queue_idx` ON `webhook_jobs` (`webhook_id`,`next_attempt_at`,`id`) WHERE "webhook_jobs"."state" = 'queued';--> statement-breakpoint
CREATE INDEX `webhook_jobs_due_idx` ON `webhook_jobs` (`next_attempt_at`) WHERE "webhook_jobs"."state" = 'queued';--> statement-breakpoint
CREATE INDEX `webhook_jobs_lease_idx` ON `webhook_jobs` (`lease_expires_at`) WHERE "webhook_jobs"."state" = 'delivering';--> statement-breakpoint
CREATE INDEX `webhook_jobs_webhook_idx` ON `webhook_jobs` (`webhook_id`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`is_enabled` integer NOT NULL,
	`auto_disabled_at` integer,
	`secret_ciphertext` text NOT NULL,
	`start_after_seq` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhooks_workspace_created_idx` ON `webhooks` (`workspace_id`,`created_at`,`id`);
--> statement-breakpoint
-- The fan-out starts after the events already written: they predate every subscription.
INSERT INTO `webhook_fanout_cursor` (`id`, `last_seq`) SELECT 1, coalesce(max(`seq`), 0) FROM `events`;
