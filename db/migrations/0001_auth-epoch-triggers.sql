-- Any change to keys, workspaces or plans moves the auth epoch, so every process drops its cache of
-- resolved API keys on its next request (src/core/accounts/api-keys.ts).
INSERT INTO `auth_epoch` (`id`, `version`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `api_keys_insert_moves_auth_epoch` AFTER INSERT ON `api_keys` BEGIN UPDATE `auth_epoch` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_update_moves_auth_epoch` AFTER UPDATE ON `api_keys` BEGIN UPDATE `auth_epoch` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_delete_moves_auth_epoch` AFTER DELETE ON `api_keys` BEGIN UPDATE `auth_epoch` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `workspaces_insert_moves_auth_epoch` AFTER INSERT ON `workspaces` BEGIN UPDATE `auth_epoch` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `workspaces_update_moves_auth_epoch` AFTER UPDATE ON `workspaces` BEGIN UPDATE `auth_epoch` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `workspaces_delete_moves_auth_epoch` AFTER DELETE ON `workspaces` BEGIN UPDATE `auth_epoch` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `plans_insert_moves_auth_epoch` AFTER INSERT ON `plans` BEGIN UPDATE `auth_epoch` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `plans_update_moves_auth_epoch` AFTER UPDATE ON `plans` BEGIN UPDATE `auth_epoch` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `plans_delete_moves_auth_epoch` AFTER DELETE ON `plans` BEGIN UPDATE `auth_epoch` SET `version` = `version` + 1 WHERE `id` = 1; END;
