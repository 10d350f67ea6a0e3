import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No import circle in src/core. A circle makes load order matter (a value read before its module has
 * run) and blurs which module is below which. Type-only imports count too: they tie the modules as
 * tightly for a reader, and the one rule is simpler to keep than two.
 */

/** The relative imports and re-exports of each file, as TypeScript's own pre-processor reads them. */
function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    const { importedFiles } = ts.preProcessFile(source, true, true);
    graph.set(
      file,
      importedFiles
        .map((imported) => imported.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => resolve(dirname(file), name))
        .filter((target) => files.has(target)),
    );
  }
  return graph;
}

/** Every circle, as the files of each strongly connected component of more than one file (or a self-import). */
function importCircles(graph: ReadonlyMap<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

function sourcesUnder(folder: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    if (entry.endsWith('.ts')) files.set(resolve(folder, entry), readFileSync(join(folder, entry), 'utf8'));
  }
  return files;
}

describe('import circles', () => {
  it('finds a circle, through a type-only import and a re-export alike', () => {
    const files = new Map([
      [resolve('/probe/a.ts'), "import { b } from './b.ts';\nexport const a = b;\n"],
      [resolve('/probe/b.ts'), "export { c as b } from './c.ts';\n"],
      [resolve('/probe/c.ts'), "import type { A } from './a.ts';\nexport const c = 1 as unknown as A;\n"],
      [resolve('/probe/d.ts'), "import { a } from './a.ts';\nexport const d = a;\n"],
    ]);
    expect(importCircles(importGraph(files)).map((circle) => circle.map((file) => relative('/probe', file)))).toEqual([
      ['a.ts', 'b.ts', 'c.ts'],
    ]);
  });

  it('finds none in a tree without one', () => {
    const files = new Map([
      [resolve('/probe/a.ts'), "import { b } from './b.ts';\nexport const a = b;\n"],
      [resolve('/probe/b.ts'), 'export const b = 1;\n'],
    ]);
    expect(importCircles(importGraph(files))).toEqual([]);
  });

  it('src/core has none', () => {
    const core = resolve('src/core');
    const circles = importCircles(importGraph(sourcesUnder(core))).map((circle) =>
      circle.map((file) => relative(core, file)).join(' → '),
    );
    expect(circles).toEqual([]);
  });
});
