import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, runNode } from '../helpers/subprocess.ts';

const MIGRATION_FOLDERS = ['db/migrations', 'db/migrations-pg'];

function listing(): string[] {
  return MIGRATION_FOLDERS.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true }).map((file) => `${folder}/${String(file)}`),
  ).sort();
}

// A schema change committed without its migration would reach installed databases as nothing at
// all: drizzle-kit must find nothing to write for either engine.
it('finds the migrations of both engines up to date with their schemas, writing nothing into the real folders', async () => {
  const before = listing();
  const run = await runNode(
    ['--import', 'tsx', 'tools/check-migrations.ts'],
    { cwd: ROOT, env: { ...process.env } as Record<string, string> },
    60_000,
  );
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain('SQLite: migrations are up to date.');
  expect(run.stdout).toContain('PostgreSQL: migrations are up to date.');
  expect(run.code).toBe(0);
  expect(listing()).toEqual(before);
}, 90_000);
