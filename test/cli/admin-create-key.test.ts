import { describe, expect, it } from 'vitest';
import { MAX_KEY_NAME_LENGTH } from '../../src/core/accounts/key-admin.ts';
import { runAdminCaptured } from '../helpers/admin-cli.ts';
import { Browser } from '../helpers/form-browser.ts';
import { useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { sql } from 'drizzle-orm';

const keyCount = async (bed: ReturnType<typeof useRestTestbed>) =>
  ((await bed.runtime.db.get(sql`select count(*) as n from api_keys`)) as { n: number }).n;

/** create-key runs the createKey operation the dashboard's keys page runs: one validation, one set of words. */
describe('admin CLI: create-key refuses what the dashboard refuses, in the same words', () => {
  const bed = useRestTestbed();

  it('a name too long gets the operation message on the CLI and on the keys page, and no key is made', async () => {
    const long = 'k'.repeat(MAX_KEY_NAME_LENGTH + 1);
    const before = await keyCount(bed);
    const cli = await runAdminCaptured(
      bed.runtime,
      'create-key',
      '--workspace',
      bed.ws.workspace.id,
      '--name',
      long,
      '--json',
    );
    expect(cli.code).toBe(1);
    const { error } = JSON.parse(cli.out);
    expect(error.code).toBe('invalid_body');
    const [words] = error.details.fieldErrors.name;
    expect(words).toBe(`The name is longer than ${MAX_KEY_NAME_LENGTH} characters.`);

    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    const admin = new Browser(bed);
    await admin.signIn(person.email, person.password);
    const page = await admin.post('/app/keys', { name: long });
    expect(page.text).toContain(words);
    expect(await keyCount(bed)).toBe(before);
  });

  it('an expiry in the past is refused with the operation words, named as the --expires-at flag', async () => {
    const cli = await runAdminCaptured(
      bed.runtime,
      'create-key',
      '--workspace',
      bed.ws.workspace.id,
      '--expires-at',
      '2001-01-01T00:00:00Z',
      '--json',
    );
    expect(cli.code).toBe(1);
    const { error } = JSON.parse(cli.out);
    expect(error.details.fieldErrors).toEqual({ 'expires-at': ['The expiry must be in the future.'] });
    expect(error.message).toBe('The request is invalid: expires-at: The expiry must be in the future.');
  });

  it('without --name the key is still named Unnamed key', async () => {
    const cli = await runAdminCaptured(bed.runtime, 'create-key', '--workspace', bed.ws.workspace.id, '--json');
    expect(cli.code).toBe(0);
    const listed = await runAdminCaptured(bed.runtime, 'list-keys', '--workspace', bed.ws.workspace.id, '--json');
    const { key_id: keyId } = JSON.parse(cli.out);
    expect(JSON.parse(listed.out).keys.find((key: { key_id: string }) => key.key_id === keyId).name).toBe(
      'Unnamed key',
    );
  });
});
