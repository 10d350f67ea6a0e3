import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { migratePostgres, openPostgres } from '../../db/postgres.ts';
import { databaseUrl, dropDatabase, onServer, postgresServerUrl } from '../helpers/postgres.ts';

/**
 * Migrates one template database per run; every PostgreSQL test file copies it (createTestDatabase),
 * which takes tens of milliseconds where migrating each would take seconds.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const name = `template_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer((client) => client.query(`create database "${name}"`));
  const db = await openPostgres(databaseUrl(postgresServerUrl(), name), { max: 1 });
  try {
    await migratePostgres(db);
  } finally {
    await db.$client.end();
  }
  project.provide('postgresTemplate', name);
  return () => dropDatabase(name);
}
