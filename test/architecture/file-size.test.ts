import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No file of the service itself grows past 500 lines: past that a module holds several rooms, and
 * a newcomer cannot read it in one go. Counts every file under src/, tools/ and db/schema (views,
 * styles and scripts included); generated migrations and their snapshots are not written by hand.
 */
const MAX_LINES = 500;
const ROOTS = ['src', 'tools', 'db/schema'];
const repo = join(import.meta.dirname, '..', '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

describe('file size', () => {
  it(`keeps every source file at ${MAX_LINES} lines or fewer`, () => {
    const files = ROOTS.flatMap((root) => filesUnder(join(repo, root))).filter((file) =>
      /\.(ts|js|eta|css|html)$/.test(file),
    );
    expect(files.length).toBeGreaterThan(100);
    const tooLong = files
      .map((file) => ({ file: relative(repo, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(tooLong).toEqual([]);
  });
});
