import { defineConfig } from 'drizzle-kit';

/** The PostgreSQL engine's migrations; drizzle.config.ts stays SQLite's (the embedded default). */
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema-pg/index.ts',
  out: './db/migrations-pg',
});
