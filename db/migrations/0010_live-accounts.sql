-- Social accounts become sandbox or live, with a status in place of the active flag: every existing account was
-- connected by the admin CLI (sandbox, no scopes), active ones stay `active` and inactive ones become
-- `disconnected`. `is_active` is then derived from `status` by the database, so the two never disagree.
ALTER TABLE `social_accounts` ADD `mode` text DEFAULT 'sandbox' NOT NULL;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `status` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
UPDATE `social_accounts` SET `status` = CASE WHEN `is_active` THEN 'active' ELSE 'disconnected' END;--> statement-breakpoint
ALTER TABLE `social_accounts` DROP COLUMN `is_active`;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `is_active` integer GENERATED ALWAYS AS (status = 'active') VIRTUAL NOT NULL;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `scopes` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `profile_url` text;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `access_token_encrypted` text;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `refresh_token_encrypted` text;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `token_expires_at` integer;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `refresh_token_expires_at` integer;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `refresh_lease_token` text;--> statement-breakpoint
ALTER TABLE `social_accounts` ADD `refresh_lease_until` integer;
