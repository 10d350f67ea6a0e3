import { preparedStatements, prepareText, writeTransaction, type Db } from '../../../db/client.ts';
import seedFile from '../../../db/seed/templates.json' with { type: 'json' };
import { validationError } from '../errors.ts';
import { engagementRate, TemplateEntries, type TemplateEntry } from './schemas.ts';

export interface ImportCounts {
  inserted: number;
  updated: number;
}

const COLUMNS =
  'id, name, description, source_platform, content_type, structure, example_caption, engagement, niches, created_at';
const VALUES = COLUMNS.split(', ')
  .map((column) => `@${column}`)
  .join(', ');

/**
 * Raw statements rather than drizzle's builder: the seed runs on every start (and tests open a
 * database per test), and building 46 upserts costs several milliseconds where running them
 * prepared costs a fraction of one.
 */
const statements = preparedStatements((db: Db) => ({
  count: prepareText<Record<string, never>, { n: number }>(db, 'select count(*) as n from templates'),
  upsert: prepareText<TemplateValues>(
    db,
    `insert into templates (${COLUMNS}) values (${VALUES}) on conflict(id) do update set ` +
      COLUMNS.split(', ')
        .filter((column) => column !== 'id')
        .map((column) => `${column} = excluded.${column}`)
        .join(', '),
  ),
  insertMissing: prepareText<TemplateValues>(
    db,
    `insert into templates (${COLUMNS}) values (${VALUES}) on conflict(id) do nothing`,
  ),
}));

/** Validates a whole file's entries (all or nothing): a ServiceError `invalid_body` names each problem's index and field. */
export function parseTemplateEntries(raw: unknown): TemplateEntry[] {
  const parsed = TemplateEntries.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

type TemplateValues = Record<string, string | number | null>;

function toValues(entry: TemplateEntry, now: Date): TemplateValues {
  const { views, likes, comments, shares, saves } = entry.engagement;
  return {
    id: entry.id,
    name: entry.name,
    description: entry.description,
    source_platform: entry.source_platform,
    content_type: entry.content_type,
    structure: JSON.stringify(entry.structure),
    example_caption: entry.example_caption,
    engagement: JSON.stringify({
      views,
      likes,
      comments,
      shares,
      saves,
      engagement_rate: engagementRate(entry.engagement),
    }),
    niches: JSON.stringify(entry.niches),
    created_at: (entry.created_at ?? now).getTime(),
  };
}

/**
 * Writes validated entries in one transaction. `overwrite` replaces every field of an entry whose id
 * exists (an import); `keep` leaves existing rows alone and adds only missing ids (the seed).
 */
async function writeTemplates(
  db: Db,
  entries: readonly TemplateEntry[],
  existing: 'overwrite' | 'keep',
  now: Date,
): Promise<ImportCounts> {
  const { count, upsert, insertMissing } = statements(db);
  const write = existing === 'overwrite' ? upsert : insertMissing;
  return writeTransaction(db, async () => {
    const before = (await count.get())!.n;
    for (const entry of entries) await write.run(toValues(entry, now));
    const inserted = (await count.get())!.n - before;
    return { inserted, updated: existing === 'overwrite' ? entries.length - inserted : 0 };
  });
}

/**
 * `admin import-templates`: validates every entry, then upserts by id, so running the same file
 * twice inserts nothing the second time. `updated` counts entries whose id already existed (their
 * fields are replaced, changed or not). Entries without `created_at` get `now`.
 */
export async function importTemplates(db: Db, entries: unknown, now: Date): Promise<ImportCounts> {
  return writeTemplates(db, parseTemplateEntries(entries), 'overwrite', now);
}

let seedEntries: TemplateEntry[] | undefined;

/**
 * Adds the library in db/seed/templates.json to the database: every seed id that is missing is
 * inserted, and a row that exists is left as it is, so a re-run adds nothing twice and an entry an
 * operator changed with `import-templates` is not reverted at the next start. It runs at every
 * open (openRuntime), not only on an empty table, so entries added to the file in a later release
 * reach existing databases. The file is validated once per process (it is the same file).
 */
export async function seedTemplates(db: Db): Promise<ImportCounts> {
  seedEntries ??= parseTemplateEntries(seedFile);
  return writeTemplates(db, seedEntries, 'keep', new Date(0));
}
