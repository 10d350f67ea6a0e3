-- The SQL functions SQLite's connections register or have built in, which the shared queries call:
-- fold_case (db/client.ts: NFC, then Unicode lower case) and instr (the 1-based position of a
-- substring, 0 when absent). Both immutable, so an index can be built on them.
CREATE FUNCTION "fold_case"(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT lower(normalize($1, NFC)) $$;
--> statement-breakpoint
CREATE FUNCTION "instr"(text, text) RETURNS integer LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT strpos($1, $2) $$;
