CREATE TABLE `media_assets` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`storage_key` text NOT NULL,
	`filename` text NOT NULL,
	`asset_type` text NOT NULL,
	`mime_type` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`width` integer,
	`height` integer,
	`tags` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `media_assets_storage_key_unique` ON `media_assets` (`storage_key`);--> statement-breakpoint
CREATE INDEX `media_assets_workspace_created_idx` ON `media_assets` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `media_assets_workspace_type_created_idx` ON `media_assets` (`workspace_id`,`asset_type`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `templates` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`source_platform` text NOT NULL,
	`content_type` text NOT NULL,
	`structure` text NOT NULL,
	`example_caption` text NOT NULL,
	`engagement` text NOT NULL,
	`niches` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `templates_created_idx` ON `templates` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `templates_platform_created_idx` ON `templates` (`source_platform`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `templates_type_created_idx` ON `templates` (`content_type`,`created_at`,`id`);