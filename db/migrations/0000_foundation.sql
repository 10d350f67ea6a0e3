CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`key_hash` text NOT NULL,
	`display_prefix` text NOT NULL,
	`last_four` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_workspace_idx` ON `api_keys` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `auth_epoch` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `plans` (
	`name` text PRIMARY KEY NOT NULL,
	`posts_per_month` integer NOT NULL,
	`platforms_limit` integer NOT NULL,
	`api_access` integer NOT NULL,
	`monthly_ai_credits` integer NOT NULL,
	`analytics_history_days` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rate_limit_windows` (
	`workspace_id` text NOT NULL,
	`bucket` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`workspace_id`, `bucket`, `window_start`)
);
--> statement-breakpoint
CREATE TABLE `usage_periods` (
	`workspace_id` text NOT NULL,
	`period_start` integer NOT NULL,
	`ai_credits_used` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`workspace_id`, `period_start`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`plan` text NOT NULL,
	`plan_status` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`plan`) REFERENCES `plans`(`name`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspaces_org_id_unique` ON `workspaces` (`org_id`);--> statement-breakpoint
CREATE TABLE `content` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`caption` text NOT NULL,
	`hashtags` text NOT NULL,
	`content_type` text NOT NULL,
	`target_platforms` text NOT NULL,
	`media_urls` text NOT NULL,
	`topic` text,
	`platform_specific` text NOT NULL,
	`aspect_ratio` text,
	`scheduled_for` integer,
	`published_at` integer,
	`status` text NOT NULL,
	`publish_queued` integer DEFAULT false NOT NULL,
	`publish_results` text NOT NULL,
	`campaign_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `content_workspace_created_idx` ON `content` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `content_workspace_status_created_idx` ON `content` (`workspace_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `content_workspace_type_created_idx` ON `content` (`workspace_id`,`content_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `content_workspace_published_idx` ON `content` (`workspace_id`,`published_at`) WHERE "content"."published_at" is not null;--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_id_unique` ON `events` (`id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`workspace_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `key`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
