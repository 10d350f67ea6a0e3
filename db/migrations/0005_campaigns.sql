CREATE TABLE `brand_profiles` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`voice` text,
	`audience` text,
	`topics_to_lean_into` text NOT NULL,
	`topics_to_avoid` text NOT NULL,
	`style_notes` text,
	`example_posts` text NOT NULL,
	`brand_name` text,
	`industry` text,
	`target_audience` text,
	`company_description` text,
	`website_url` text,
	`tone_formality` integer NOT NULL,
	`tone_humor` integer NOT NULL,
	`tone_energy` integer NOT NULL,
	`vocabulary` text NOT NULL,
	`forbidden_words` text NOT NULL,
	`primary_color` text,
	`secondary_color` text,
	`accent_color` text,
	`hashtag_strategy` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`status` text NOT NULL,
	`content_mix` text NOT NULL,
	`posts_per_day` integer NOT NULL,
	`campaign_length_days` integer NOT NULL,
	`start_date` integer NOT NULL,
	`total_posts` integer NOT NULL,
	`generated_posts` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `campaigns_workspace_created_idx` ON `campaigns` (`workspace_id`,`created_at`,`id`);