CREATE TABLE `oauth_metadata_fetches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`document_url` text NOT NULL,
	`address` text NOT NULL,
	`fetched_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oauth_metadata_fetches_document_idx` ON `oauth_metadata_fetches` (`document_url`,`fetched_at`);--> statement-breakpoint
CREATE INDEX `oauth_metadata_fetches_address_idx` ON `oauth_metadata_fetches` (`address`,`fetched_at`);--> statement-breakpoint
CREATE INDEX `oauth_metadata_fetches_fetched_at_idx` ON `oauth_metadata_fetches` (`fetched_at`);