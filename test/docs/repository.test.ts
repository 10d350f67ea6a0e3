import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PLATFORM_NAMES, PLATFORMS, platformEntry } from '../../src/core/platforms/registry.ts';
import { API_SURFACE } from '../../src/rest/openapi.ts';

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

  it('src/core/README.md, the shape of an operation, stays under 80 lines', () => {
    const lines = readFileSync(join(root, 'src/core/README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeGreaterThan(20);
    expect(lines).toBeLessThan(80);
  });
});

/** How the docs spell small numbers. */
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('the docs say what the code does', () => {
  const names = PLATFORMS.map((platform) => PLATFORM_NAMES[platform]);

  it("the README's platform list is the registry's, in its order and number", () => {
    const readme = prose('README.md');
    const listed = /\b(\w+) platforms \(([^)]+)\)/.exec(readme);
    expect(listed, 'the README names the platforms as "<number> platforms (A, B, … and Z)"').not.toBeNull();
    const [, count, list] = listed!;
    const entries = list!.split(/,\s*|\s+and\s+/).map((entry) => entry.trim());
    // "Facebook Pages" is how a person calls what the Facebook platform publishes to.
    expect(entries.map((entry) => names.find((name) => entry === name || entry.startsWith(`${name} `)))).toEqual(names);
    expect(count).toBe(NUMBER_WORDS[names.length]);
  });

  it('no page counts the platforms otherwise than the registry does', () => {
    const wrong: string[] = [];
    const pattern = new RegExp(`\\b(${NUMBER_WORDS.join('|')})\\s+(?:fake\\s+|live\\s+)?platforms\\b`, 'gi');
    for (const file of pages) {
      for (const [said, count] of prose(file).matchAll(pattern)) {
        if (count!.toLowerCase() !== NUMBER_WORDS[names.length]) wrong.push(`${file}: "${said}"`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('says how each platform connects: an OAuth app for the OAuth platforms, an app password for the others', () => {
    const readme = prose('README.md');
    for (const platform of PLATFORMS) {
      const { connect, name } = platformEntry(platform);
      if (connect !== 'oauth')
        expect(readme, `${name}: how it connects`).toMatch(new RegExp(`${name}[^.]*app password`));
    }
  });

  it("the architecture's layout names every platform folder, every folder of src/ and src/core/, and the composition root", () => {
    const architecture = prose('docs/architecture.md');
    const folders = (dir: string) =>
      readdirSync(join(root, dir), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    const missing = [
      ...folders('src/core/platforms').map((name) => `\`${name}/\``),
      ...folders('src').map((name) => `\`src/${name}/\``),
      ...folders('src/core').map((name) => `\`${name}\``),
      '`src/app.ts`',
    ].filter((mention) => !architecture.includes(mention));
    expect(missing).toEqual([]);
  });

  it('every repository path the docs name in backticks exists', () => {
    const missing: string[] = [];
    for (const file of pages) {
      // A path with a file extension or a trailing slash; `tools/list` is an MCP method, not a path.
      for (const [, path] of readFileSync(join(root, file), 'utf8').matchAll(
        /`((?:src|db|test|tools|fakes|bench|docs)\/[\w./-]*(?:\.\w+|\/))`/g,
      )) {
        if (!existsSync(join(root, path!))) missing.push(`${file}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every function or value the docs name in backticks (camelCase) exists in the code', () => {
    const sources = execFileSync('git', ['ls-files', 'src', 'db', 'tools', 'fakes', 'bench', 'test'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => /\.(ts|js)$/.test(file) && existsSync(join(root, file)))
      .map((file) => readFileSync(join(root, file), 'utf8'))
      .join('\n');
    const missing = new Set<string>();
    for (const file of pages) {
      for (const [, name] of readFileSync(join(root, file), 'utf8').matchAll(/`([a-z][a-z0-9]*[A-Z]\w*)(?:\(\))?`/g)) {
        if (!new RegExp(`\\b${name}\\b`).test(sources)) missing.add(`${file}: ${name}`);
      }
      for (const [, name] of readFileSync(join(root, file), 'utf8').matchAll(/\b([a-z][a-z0-9]*[A-Z]\w*)\(\)/g)) {
        if (!new RegExp(`\\b${name}\\b`).test(sources)) missing.add(`${file}: ${name}()`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it("docs/api.md's route table lists every operation route under /api/v1, and no other", () => {
    const section = prose('docs/api.md')
      .split(/^## Routes$/m)[1]!
      .split(/^#{2,3} /m)[0]!;
    const documented = new Set<string>();
    for (const [, methods, paths] of section.matchAll(/^\|\s*([A-Z, ]+?)\s*\|([^|]+)\|/gm)) {
      for (const [, path] of paths!.matchAll(/`([^`]+)`/g)) {
        for (const method of methods!.split(/,\s*/)) documented.add(`${method} ${path!.replace(/\{(\w+)\}/g, ':$1')}`);
      }
    }
    const served = new Set(
      API_SURFACE.flatMap(({ mount, endpoints }) =>
        endpoints
          .filter((endpoint) => endpoint.kind === 'operation' && `${mount}${endpoint.path}`.startsWith('/api/v1/'))
          .map((endpoint) => `${endpoint.method.toUpperCase()} ${`${mount}${endpoint.path}`.slice('/api/v1'.length)}`),
      ),
    );
    expect(served.size).toBeGreaterThan(25);
    expect([...documented].filter((route) => !served.has(route))).toEqual([]);
    expect([...served].filter((route) => !documented.has(route))).toEqual([]);
  });
});
