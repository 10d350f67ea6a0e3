ALTER TABLE `workspaces` ADD `default_language` text;--> statement-breakpoint
ALTER TABLE `content` ADD `media_alt_text` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `media_assets` ADD `alt_text` text;