CREATE TABLE `invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`invited_by` text,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`accepted_at` integer,
	`withdrawn_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_token_hash_unique` ON `invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `invitations_email_idx` ON `invitations` (`email`,`created_at`);--> statement-breakpoint
CREATE INDEX `invitations_workspace_idx` ON `invitations` (`workspace_id`,`expires_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `last_workspace_id` text;--> statement-breakpoint
-- An invite link of a person who never set a password becomes an invitation with the same token
-- (its link keeps working), and that person stops being a member until they accept it.
INSERT INTO `invitations` (`id`, `workspace_id`, `email`, `role`, `invited_by`, `token_hash`, `created_at`, `expires_at`)
SELECT lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' ||
    substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))),
  `password_links`.`workspace_id`, `users`.`email`, `memberships`.`role`, NULL, `password_links`.`token_hash`,
  `password_links`.`created_at`, `password_links`.`expires_at`
FROM `password_links`
JOIN `users` ON `users`.`id` = `password_links`.`user_id`
JOIN `memberships` ON `memberships`.`workspace_id` = `password_links`.`workspace_id` AND `memberships`.`user_id` = `password_links`.`user_id`
WHERE `password_links`.`kind` = 'invite' AND `password_links`.`used_at` IS NULL AND `users`.`password_hash` IS NULL;--> statement-breakpoint
DELETE FROM `memberships` WHERE `user_id` IN (SELECT `id` FROM `users` WHERE `password_hash` IS NULL);--> statement-breakpoint
-- Invite links of people who have a password set nothing any more: they join by consent.
DELETE FROM `password_links` WHERE `kind` = 'invite';
