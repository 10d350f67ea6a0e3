import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A test that runs on SQLite only (onSqliteOnly.it / onSqliteOnly.describe) is reported as skipped
 * in the PostgreSQL run; its name must say "SQLite", so that a skipped test reads as what it is and
 * never as a test quietly left out. Checks every such call's title, the string literal after it.
 */
const repo = join(import.meta.dirname, '..', '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? testFiles(path) : path.endsWith('.test.ts') ? [path] : [];
  });
}

describe('SQLite-only tests', () => {
  it('say SQLite in their names', () => {
    const calls: string[] = [];
    const unnamed: string[] = [];
    for (const file of testFiles(join(repo, 'test'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/onSqliteOnly\.(?:it|describe)\(\s*(['`"])((?:\\.|(?!\1).)*)\1/gs)) {
        calls.push(match[2]!);
        if (!/SQLite/.test(match[2]!)) unnamed.push(`${relative(repo, file)}: ${match[2]}`);
      }
    }
    expect(calls.length).toBeGreaterThan(5);
    expect(unnamed).toEqual([]);
  });
});
