import Database from 'better-sqlite3';
import { sqliteOf, type Db } from '../../db/client.ts';
import { copySqliteToPostgres, TargetNotEmptyError, type TableCopied } from '../../db/copy-to-postgres.ts';
import { migratePostgres, openPostgres, PostgresConnectError, redactPassword } from '../../db/postgres.ts';
import { isPostgresUrl } from '../core/config.ts';
import { fieldError, ServiceError } from '../core/errors.ts';

export interface MigrateToPostgresResult {
  /** The SQLite file copied. */
  source: string;
  /** The target's URL with its password replaced by ***. */
  target: string;
  tables: TableCopied[];
  rows: number;
}

/**
 * `admin migrate-to-postgres --to URL`: migrates the PostgreSQL database at `url`, then copies this
 * installation's SQLite database (`db`, the one the configuration names) into it in one transaction
 * (db/copy-to-postgres.ts), reporting each table to `progress` as it is copied. The target must be
 * empty of user data; a run that fails or is stopped commits nothing, so it can simply be run again.
 * The URL's password appears in no message.
 */
export async function migrateToPostgres(
  db: Db,
  url: string,
  progress: (line: string) => void,
): Promise<MigrateToPostgresResult> {
  if (db.$store.engine !== 'sqlite') {
    throw new ServiceError(
      'invalid_state',
      'This installation already runs on PostgreSQL (DATABASE_URL is set): migrate-to-postgres copies the SQLite database. ' +
        'Run it without DATABASE_URL, with DATA_DIR or DATABASE_FILE naming the SQLite file.',
    );
  }
  const file = sqliteOf(db).name;
  if (file === ':memory:' || file === '')
    throw new ServiceError('invalid_state', 'The SQLite database is in memory: there is nothing to copy.');
  if (!isPostgresUrl(url)) {
    throw fieldError('to', 'Give a PostgreSQL URL: postgres://user:password@host:port/database');
  }
  const target = withoutPassword(url);
  let pool;
  try {
    pool = await openPostgres(url, { max: 1 });
  } catch (error) {
    if (error instanceof PostgresConnectError) throw fieldError('to', error.message);
    throw error;
  }
  const source = new Database(file, { readonly: true, fileMustExist: true });
  try {
    progress(`Migrating ${target} ...`);
    await migratePostgres(pool);
    progress(`Copying ${file} to ${target} (one transaction: nothing is kept unless all of it arrives)`);
    const tables = await copySqliteToPostgres(source, pool.$client, {
      onTable: ({ table, rows, ms }) => progress(`  ${table}: ${rows} row${rows === 1 ? '' : 's'} (${ms} ms)`),
    });
    return { source: file, target, tables, rows: tables.reduce((sum, table) => sum + table.rows, 0) };
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    const message = redactPassword((error as Error).message, url);
    if (error instanceof TargetNotEmptyError) throw fieldError('to', message);
    throw new ServiceError(
      'invalid_state',
      `${message.replace(/\.$/, '')}. Nothing was committed to ${target}: fix the cause and run migrate-to-postgres again.`,
    );
  } finally {
    source.close();
    await pool.$client.end().catch(() => {});
  }
}

/** `url` as it may be printed: its password (if any) replaced by ***. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the PostgreSQL URL';
  }
}
