CREATE TABLE "job_ticks" (
	"job" text PRIMARY KEY NOT NULL,
	"tick_at" bigint NOT NULL
);
