import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import seedFile from '../../db/seed/templates.json' with { type: 'json' };
import { loadConfig } from '../../src/core/config.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { toTemplateResource } from '../../src/core/templates/serialize.ts';
import { templates } from '../../db/schema/index.ts';
import { runEntry, tempDataDir, type Finished, withTestDatabase } from '../helpers/subprocess.ts';

const SLOW = 60_000;
const SEED = seedFile as { id: string; name: string }[];

const entry = (n: number, overrides: Record<string, unknown> = {}) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: `Imported ${n}`,
  description: 'Imported from the command line.',
  source_platform: 'facebook',
  content_type: 'single_image',
  structure: { hook: 'Hook.', body: 'Body.', call_to_action: 'Call to action.' },
  example_caption: 'A caption for Facebook.',
  engagement: { views: 2000, likes: 80, comments: 12, shares: 6, saves: 2, engagement_rate: 0.05 },
  niches: ['pets'],
  created_at: '2026-02-10T08:00:00Z',
  ...overrides,
});

/** `admin import-templates <file.json>` as an operator runs it, on a database file of its own. */
describe('admin import-templates (subprocess)', () => {
  const data = tempDataDir('import-templates');
  afterAll(() => data.remove());

  const admin = (...args: string[]): Promise<Finished> => runEntry(['admin', ...args], { DATA_DIR: data.dir });
  const writeJson = (name: string, text: string) => {
    const path = join(data.dir, name);
    writeFileSync(path, text);
    return path;
  };
  const readLibrary = async () => {
    const runtime = await openRuntime({
      config: loadConfig(withTestDatabase({ DATA_DIR: data.dir, PUBLIC_BASE_URL: 'http://127.0.0.1:3000' })),
    });
    try {
      return (await runtime.db.select().from(templates).all()).map(toTemplateResource);
    } finally {
      await runtime.db.$store.close();
    }
  };

  it(
    'inserts new ids and updates an existing one, prints the counts, and a re-run inserts nothing',
    async () => {
      const changedSeed = { ...(SEED[0] as object), name: 'Renamed by the operator' };
      const file = writeJson(
        'three.json',
        JSON.stringify([entry(1), entry(2, { niches: ['pets', 'education'] }), changedSeed]),
      );
      const first = await admin('import-templates', file, '--json');
      expect(first.code, first.stderr + first.stdout).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ inserted: 2, updated: 1 });

      const again = await admin('import-templates', file, '--json');
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ inserted: 0, updated: 3 });

      const text = await admin('import-templates', file);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/0 inserted, 3 updated/);

      // Opening the database again (which re-runs the seed) keeps both the imports and the change.
      const library = await readLibrary();
      expect(library).toHaveLength(SEED.length + 2);
      expect(library.find((t) => t.id === SEED[0]!.id)!.name).toBe('Renamed by the operator');
      expect(library.find((t) => t.id === entry(2).id)).toMatchObject({
        object: 'template',
        niches: ['pets', 'education'],
        created_at: '2026-02-10T08:00:00.000Z',
      });
    },
    SLOW,
  );

  it(
    'refuses invalid JSON, an invalid entry and a missing file with a non-zero exit and the reason, writing nothing',
    async () => {
      const broken = await admin('import-templates', writeJson('broken.json', '[{"id": '), '--json');
      expect(broken.code).not.toBe(0);
      const brokenError = JSON.parse(broken.stdout).error;
      expect(brokenError.code).toBe('invalid_body');
      expect(brokenError.message).toMatch(/not valid JSON/);

      const invalid = writeJson(
        'invalid.json',
        JSON.stringify([entry(3), entry(4, { source_platform: 'twitter', example_caption: 'x'.repeat(300) })]),
      );
      const refused = await admin('import-templates', invalid, '--json');
      expect(refused.code).not.toBe(0);
      const refusedError = JSON.parse(refused.stdout).error;
      expect(refusedError.code).toBe('invalid_body');
      expect(refusedError.message).toMatch(/1\.example_caption/);
      expect(refusedError.details.fieldErrors['1']).toEqual([expect.stringMatching(/280/)]);

      const plain = await admin('import-templates', invalid);
      expect(plain.code).not.toBe(0);
      expect(plain.stderr).toMatch(/example_caption/);

      const missing = await admin('import-templates', join(data.dir, 'nope.json'));
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toMatch(/Cannot read .*nope\.json/);

      expect((await readLibrary()).some((t) => t.id === entry(3).id)).toBe(false);
    },
    SLOW,
  );
});
