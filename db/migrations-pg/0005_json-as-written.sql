ALTER TABLE "content" ALTER COLUMN "hashtags" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "content" ALTER COLUMN "target_platforms" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "content" ALTER COLUMN "media_urls" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "content" ALTER COLUMN "platform_specific" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "content" ALTER COLUMN "media_alt_text" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "content" ALTER COLUMN "media_alt_text" SET DEFAULT '{}'::json;--> statement-breakpoint
ALTER TABLE "content" ALTER COLUMN "publish_results" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "data" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "publish_checkpoints" ALTER COLUMN "data" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "publish_checkpoints" ALTER COLUMN "data" SET DEFAULT '{}'::json;--> statement-breakpoint
ALTER TABLE "sandbox_posts" ALTER COLUMN "media_urls" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "social_accounts" ALTER COLUMN "scopes" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "social_accounts" ALTER COLUMN "scopes" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "webhooks" ALTER COLUMN "events" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "campaigns" ALTER COLUMN "content_mix" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "brand_profiles" ALTER COLUMN "topics_to_lean_into" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "brand_profiles" ALTER COLUMN "topics_to_avoid" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "brand_profiles" ALTER COLUMN "example_posts" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "brand_profiles" ALTER COLUMN "vocabulary" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "brand_profiles" ALTER COLUMN "forbidden_words" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "media_assets" ALTER COLUMN "tags" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "templates" ALTER COLUMN "structure" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "templates" ALTER COLUMN "engagement" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "templates" ALTER COLUMN "niches" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "oauth_clients" ALTER COLUMN "redirect_uris" SET DATA TYPE json;