-- The rows SQLite's migrations made by hand, and its auth-epoch triggers: any change to keys,
-- workspaces or plans moves the auth epoch, so every process drops its cache of resolved API keys on
-- its next request (src/core/accounts/api-keys.ts). Row triggers, as SQLite's are: a statement that
-- changes no row leaves the epoch alone.
INSERT INTO "auth_epoch" ("id", "version") VALUES (1, 0);
--> statement-breakpoint
-- The fan-out starts after the events already written (none, on a new database).
INSERT INTO "webhook_fanout_cursor" ("id", "last_seq") SELECT 1, coalesce(max("seq"), 0) FROM "events";
--> statement-breakpoint
CREATE FUNCTION "move_auth_epoch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "auth_epoch" SET "version" = "version" + 1 WHERE "id" = 1;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "api_keys_insert_moves_auth_epoch" AFTER INSERT ON "api_keys" FOR EACH ROW EXECUTE FUNCTION "move_auth_epoch"();
--> statement-breakpoint
CREATE TRIGGER "api_keys_update_moves_auth_epoch" AFTER UPDATE ON "api_keys" FOR EACH ROW EXECUTE FUNCTION "move_auth_epoch"();
--> statement-breakpoint
CREATE TRIGGER "api_keys_delete_moves_auth_epoch" AFTER DELETE ON "api_keys" FOR EACH ROW EXECUTE FUNCTION "move_auth_epoch"();
--> statement-breakpoint
CREATE TRIGGER "workspaces_insert_moves_auth_epoch" AFTER INSERT ON "workspaces" FOR EACH ROW EXECUTE FUNCTION "move_auth_epoch"();
--> statement-breakpoint
CREATE TRIGGER "workspaces_update_moves_auth_epoch" AFTER UPDATE ON "workspaces" FOR EACH ROW EXECUTE FUNCTION "move_auth_epoch"();
--> statement-breakpoint
CREATE TRIGGER "workspaces_delete_moves_auth_epoch" AFTER DELETE ON "workspaces" FOR EACH ROW EXECUTE FUNCTION "move_auth_epoch"();
--> statement-breakpoint
CREATE TRIGGER "plans_insert_moves_auth_epoch" AFTER INSERT ON "plans" FOR EACH ROW EXECUTE FUNCTION "move_auth_epoch"();
--> statement-breakpoint
CREATE TRIGGER "plans_update_moves_auth_epoch" AFTER UPDATE ON "plans" FOR EACH ROW EXECUTE FUNCTION "move_auth_epoch"();
--> statement-breakpoint
CREATE TRIGGER "plans_delete_moves_auth_epoch" AFTER DELETE ON "plans" FOR EACH ROW EXECUTE FUNCTION "move_auth_epoch"();
