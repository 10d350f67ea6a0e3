CREATE TABLE `api_key_uses` (
	`key_id` text PRIMARY KEY NOT NULL,
	`last_used_at` integer NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `api_keys` ADD `name` text DEFAULT 'Unnamed key' NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_connect_states` ADD `session_hash` text;