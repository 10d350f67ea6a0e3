import { ESLint } from 'eslint';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The import direction (db ← src/core ← tools; the doors on top, never importing one another; one
 * composition root, src/app.ts, over them) is enforced by lint (eslint.config.js, LAYERS); these prove
 * it bites. src/http is the HTTP plumbing REST and MCP share: it may import the core, never a door.
 */
describe('import direction', () => {
  // The probes are files that do not exist, so no TypeScript project holds them: the type-aware
  // rules (and the project they need) are left out here; the import rules need no types.
  const eslint = new ESLint({
    cwd: process.cwd(),
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
    },
  });
  const LINT_RULES = ['no-restricted-imports', 'layers/import-direction'];
  /** How many import refusals the lint reports for `code` placed at `filePath`. */
  const refusedIn = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath });
    return result!.messages.filter((m) => m.ruleId !== null && LINT_RULES.includes(m.ruleId)).length;
  };
  const importOf = (from: string) => `import * as probe from '${from}';\nexport default probe;\n`;

  const DOORS = ['rest', 'mcp', 'web', 'jobs', 'cli'] as const;
  /** A module that exists in each door, as a sibling door would import it. */
  const DOOR_MODULE: Record<(typeof DOORS)[number], string> = {
    rest: 'rest/app.ts',
    mcp: 'mcp/http-door.ts',
    web: 'web/app.ts',
    jobs: 'jobs/publish-run.ts',
    cli: 'cli/admin.ts',
  };

  it('refuses Express, the MCP SDK, node:http and croner inside src/core and db/', async () => {
    for (const pkg of ['express', '@modelcontextprotocol/server', 'node:http', 'croner']) {
      expect(await refusedIn('src/core/probe.ts', importOf(pkg)), pkg).toBe(1);
      expect(await refusedIn('db/probe.ts', importOf(pkg)), pkg).toBe(1);
    }
  });

  it('refuses every door, src/http and the composition root inside src/core', async () => {
    for (const door of DOORS) {
      expect(await refusedIn('src/core/probe.ts', importOf(`../${DOOR_MODULE[door]}`)), door).toBe(1);
      expect(await refusedIn('src/core/content/probe.ts', importOf(`../../${DOOR_MODULE[door]}`)), door).toBe(1);
    }
    expect(await refusedIn('src/core/probe.ts', importOf('../web/app.ts'))).toBe(1);
    expect(await refusedIn('src/core/probe.ts', importOf('../web/preview/platform-preview.ts'))).toBe(1);
    // Refused twice: the layer rule, and the core's package rule, whose `http` names the folder too.
    expect(await refusedIn('src/core/probe.ts', importOf('../http/errors.ts'))).toBeGreaterThanOrEqual(1);
    expect(await refusedIn('src/core/probe.ts', importOf('../app.ts'))).toBe(1);
    expect(await refusedIn('src/core/probe.ts', importOf('../../tools/index.ts'))).toBe(1);
  });

  it('refuses src/ inside db/ and the doors inside tools/', async () => {
    expect(await refusedIn('db/probe.ts', importOf('../src/core/ids.ts'))).toBe(1);
    for (const door of DOORS) {
      expect(await refusedIn('tools/probe.ts', importOf(`../src/${DOOR_MODULE[door]}`)), door).toBe(1);
    }
  });

  it('refuses every door inside every other door', async () => {
    for (const from of DOORS) {
      for (const to of DOORS) {
        if (from === to) continue;
        expect(await refusedIn(`src/${from}/probe.ts`, importOf(`../${DOOR_MODULE[to]}`)), `${from} → ${to}`).toBe(1);
        // From deeper inside the door too: the rule reads where the import resolves, not how it is spelt.
        expect(
          await refusedIn(`src/${from}/inner/probe.ts`, importOf(`../../${DOOR_MODULE[to]}`)),
          `${from}/inner → ${to}`,
        ).toBe(1);
      }
    }
  });

  it('keeps src/http below the doors and the doors below the composition root', async () => {
    for (const door of DOORS) {
      expect(await refusedIn('src/http/probe.ts', importOf(`../${DOOR_MODULE[door]}`)), door).toBe(1);
      if (door !== 'cli') expect(await refusedIn(`src/${door}/probe.ts`, importOf('../app.ts')), door).toBe(1);
    }
    // web/pages/probe.ts's '../app.ts' is the dashboard's own assembly, not the root: allowed.
    expect(await refusedIn('src/web/pages/probe.ts', importOf('../app.ts'))).toBe(0);
    expect(await refusedIn('src/web/pages/probe.ts', importOf('../../app.ts'))).toBe(1);
    // The shared preview is pure: no door, no HTTP plumbing.
    expect(await refusedIn('src/web/preview/probe.ts', importOf('../app.ts'))).toBe(1);
    expect(await refusedIn('src/web/preview/probe.ts', importOf('../../http/errors.ts'))).toBe(1);
  });

  it('lets the doors use the core and src/http, the MCP door tools/ and the preview, the root every door, and the CLI the root', async () => {
    for (const door of DOORS) {
      expect(await refusedIn(`src/${door}/probe.ts`, importOf('../core/ids.ts')), door).toBe(0);
      expect(await refusedIn(`src/${door}/probe.ts`, importOf('../../db/schema/index.ts')), door).toBe(0);
    }
    expect(await refusedIn('src/rest/probe.ts', importOf('../http/errors.ts'))).toBe(0);
    expect(await refusedIn('src/mcp/probe.ts', importOf('../http/errors.ts'))).toBe(0);
    expect(await refusedIn('src/mcp/probe.ts', importOf('../../tools/index.ts'))).toBe(0);
    expect(await refusedIn('src/mcp/apps/view/probe.ts', importOf('../../../web/preview/html.ts'))).toBe(0);
    expect(await refusedIn('tools/probe.ts', importOf('../src/core/ids.ts'))).toBe(0);
    for (const door of DOORS) {
      if (door !== 'cli') expect(await refusedIn('src/app.ts', importOf(`./${DOOR_MODULE[door]}`)), door).toBe(0);
    }
    expect(await refusedIn('src/app.ts', importOf('./cli/admin.ts'))).toBe(1);
    expect(await refusedIn('src/cli/probe.ts', importOf('../app.ts'))).toBe(0);
  });

  it('holds over the tree as it stands: no file of src/, db/ or tools/ imports across the rule', async () => {
    // The lint's own table and judgement (eslint.config.js is untyped JavaScript, hence the named type).
    const lintConfig = '../../eslint.config.js';
    const { importRefusal } = (await import(lintConfig)) as {
      importRefusal(file: string, target: string): string | undefined;
    };
    const root = process.cwd();
    const repoPath = (path: string) => relative(root, path).split('\\').join('/');
    const files = ['src', 'db', 'tools'].flatMap((dir) =>
      (readdirSync(join(root, dir), { recursive: true }) as string[])
        .filter((name) => /\.(ts|js)$/.test(name))
        .map((name) => join(root, dir, name)),
    );
    expect(files.length).toBeGreaterThan(200);
    const refusals: string[] = [];
    for (const file of files) {
      // The imports as TypeScript's own pre-processor reads them, type-only and dynamic ones included.
      for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        if (!fileName.startsWith('.')) continue;
        const refusal = importRefusal(repoPath(file), repoPath(resolve(dirname(file), fileName)));
        if (refusal) refusals.push(`${repoPath(file)}: ${refusal}`);
      }
    }
    expect(refusals).toEqual([]);
  });
});
