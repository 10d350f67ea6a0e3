CREATE TABLE `data_deletion_requests` (
	`confirmation_code` text PRIMARY KEY NOT NULL,
	`platform` text NOT NULL,
	`accounts_removed` integer NOT NULL,
	`completed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `publish_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`content_id` text NOT NULL,
	`platform` text NOT NULL,
	`social_account_id` text,
	`status` text NOT NULL,
	`platform_post_id` text,
	`error` text,
	`attempted_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`run_id`) REFERENCES `publish_runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `publish_attempts_run_platform_idx` ON `publish_attempts` (`run_id`,`platform`);--> statement-breakpoint
CREATE INDEX `publish_attempts_workspace_finished_idx` ON `publish_attempts` (`workspace_id`,`finished_at`) WHERE "publish_attempts"."finished_at" is not null;--> statement-breakpoint
CREATE TABLE `publish_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`content_id` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`outcome` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`content_id`) REFERENCES `content`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `publish_runs_content_idx` ON `publish_runs` (`content_id`);--> statement-breakpoint
CREATE INDEX `publish_runs_workspace_finished_idx` ON `publish_runs` (`workspace_id`,`finished_at`) WHERE "publish_runs"."finished_at" is not null;--> statement-breakpoint
CREATE TABLE `sandbox_posts` (
	`id` text PRIMARY KEY NOT NULL,
	`platform` text NOT NULL,
	`platform_user_id` text NOT NULL,
	`attempt_id` text NOT NULL,
	`text` text NOT NULL,
	`media_urls` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_posts_attempt_idx` ON `sandbox_posts` (`attempt_id`);--> statement-breakpoint
CREATE TABLE `social_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`platform` text NOT NULL,
	`platform_user_id` text NOT NULL,
	`username` text NOT NULL,
	`display_name` text,
	`is_active` integer NOT NULL,
	`connected_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `social_accounts_workspace_platform_user_idx` ON `social_accounts` (`workspace_id`,`platform`,`platform_user_id`);--> statement-breakpoint
CREATE INDEX `social_accounts_platform_user_idx` ON `social_accounts` (`platform`,`platform_user_id`);--> statement-breakpoint
ALTER TABLE `content` ADD `publish_run_id` text;--> statement-breakpoint
ALTER TABLE `content` ADD `lease_token` text;--> statement-breakpoint
ALTER TABLE `content` ADD `lease_expires_at` integer;--> statement-breakpoint
CREATE INDEX `content_publish_due_idx` ON `content` (coalesce("scheduled_for", 0),`id`) WHERE "content"."publish_queued" = 1 and "content"."status" in ('approved', 'scheduled');--> statement-breakpoint
CREATE INDEX `content_publish_lease_idx` ON `content` (`lease_expires_at`) WHERE "content"."status" = 'publishing';