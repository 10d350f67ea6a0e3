import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).map((name) => join('docs', name))].filter((file) =>
  file.endsWith('.md'),
);

/** Code blocks hold examples, not links; headings inside them are not anchors either. */
const prose = (file: string) => readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(file).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

describe('the repository explains itself', () => {
  it('every relative link in the README and docs/ resolves to a file (and heading) inside the repository', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of pages) {
      for (const [, target] of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // an absolute URL
        checked += 1;
        const [path, anchor] = target!.split('#');
        const resolved = path ? normalize(join(dirname(file), path)) : file;
        if (relative(root, join(root, resolved)).startsWith('..') || !existsSync(join(root, resolved))) {
          broken.push(`${file}: ${target} (no file ${resolved})`);
        } else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor})`);
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it('the README stays a short front page (at most 200 lines)', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('no tracked file sends the reader to documents outside the repository', () => {
    // Built from parts so that this file does not match itself.
    const outside = ['\\.\\./' + 'shared', 'SPEC' + '\\.md', 'DECISIONS' + '\\.md', 'ARCHITECTURE' + '\\.md'];
    let found = '';
    try {
      found = execFileSync('git', ['grep', '-nE', outside.join('|')], { cwd: root, encoding: 'utf8' });
    } catch (error) {
      // git grep exits 1 when nothing matches: the outcome wanted.
      if ((error as { status?: number }).status !== 1) throw error;
    }
    expect(found).toBe('');
  });
});
