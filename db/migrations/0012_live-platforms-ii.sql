ALTER TABLE `oauth_connect_states` ADD `choices_encrypted` text;--> statement-breakpoint
ALTER TABLE `publish_attempts` ADD `notice` text;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `token_issued_at` integer;