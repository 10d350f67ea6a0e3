ALTER TABLE `sign_in_failures` ADD `device` text;--> statement-breakpoint
CREATE INDEX `sign_in_failures_device_idx` ON `sign_in_failures` (`device`,`failed_at`);