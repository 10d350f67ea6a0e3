CREATE TABLE `handled_signed_requests` (
	`signature_hash` text PRIMARY KEY NOT NULL,
	`forget_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `handled_signed_requests_forget_at_idx` ON `handled_signed_requests` (`forget_at`);