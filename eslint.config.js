// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import { dirname, relative, resolve, sep } from 'node:path';
import tseslint from 'typescript-eslint';

/** Packages of the doors: the core and db/ know no transport, no HTTP and no timers. */
const doorPackages = ['express', 'express/*', '@modelcontextprotocol/*', 'http', 'node:http', 'croner'];

/**
 * The import direction, by layer: each layer (a folder, or the composition root) and the layers its
 * relative imports may reach. db <- src/core <- tools; src/http is plumbing shared by the HTTP doors;
 * the doors (rest, mcp, web, jobs, cli) use the core, never one another; src/app.ts, the composition
 * root, alone imports several doors, and the CLI starts it. src/web/preview is the one pure module the
 * dashboard renders on the server and the MCP App views in the browser: it uses core types only.
 * Layers are matched in order, the first match wins; a file in none (test/, bench/, fakes/) is free.
 */
const LAYERS = [
  { name: 'db', path: 'db/', may: ['db'] },
  { name: 'core', path: 'src/core/', may: ['core', 'db'] },
  { name: 'tools', path: 'tools/', may: ['tools', 'core', 'db'] },
  { name: 'http', path: 'src/http/', may: ['http', 'core', 'db'] },
  { name: 'preview', path: 'src/web/preview/', may: ['preview', 'core', 'db'] },
  { name: 'rest', path: 'src/rest/', may: ['rest', 'http', 'core', 'db'] },
  { name: 'mcp', path: 'src/mcp/', may: ['mcp', 'http', 'preview', 'tools', 'core', 'db'] },
  { name: 'web', path: 'src/web/', may: ['web', 'http', 'preview', 'core', 'db'] },
  { name: 'jobs', path: 'src/jobs/', may: ['jobs', 'core', 'db'] },
  { name: 'cli', path: 'src/cli/', may: ['cli', 'root', 'core', 'db'] },
  {
    name: 'root',
    path: 'src/app.ts',
    may: ['root', 'rest', 'mcp', 'web', 'jobs', 'http', 'core', 'db'],
  },
];

/** The layer of a path relative to the repository root, or undefined. */
const layerOf = (/** @type {string} */ path) =>
  LAYERS.find((layer) => (layer.path.endsWith('/') ? path.startsWith(layer.path) : path === layer.path));

/**
 * Why `file` may not import `target` (both relative to the repository root, with `/`), or undefined
 * when it may. The lint rule below asks it of every relative import; the import-direction test asks it
 * of the whole tree.
 * @param {string} file
 * @param {string} target
 * @returns {string | undefined}
 */
export function importRefusal(file, target) {
  const from = layerOf(file);
  const to = layerOf(target);
  if (!from || !to || from.may.includes(to.name)) return undefined;
  const why =
    from.name === 'root'
      ? 'the composition root is started by the CLI, not the other way round.'
      : `${from.name} uses only ${from.may.filter((name) => name !== from.name).join(', ')}.`;
  return `${from.name} may not import ${to.name} (${target}): ${why}`;
}

/** Resolves each relative import of a file in a layer and refuses one that reaches a layer it may not use. */
const importDirection = {
  meta: { type: 'problem', schema: [], messages: { refused: '{{refusal}}' } },
  /** @param {import('eslint').Rule.RuleContext} context */
  create(context) {
    const repoPath = (/** @type {string} */ path) => relative(context.cwd, path).split(sep).join('/');
    const file = repoPath(context.filename);
    if (!layerOf(file)) return {};
    /** @param {any} node */
    const check = (node) => {
      const source = node.source;
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string' || !source.value.startsWith('.'))
        return;
      const refusal = importRefusal(file, repoPath(resolve(dirname(context.filename), source.value)));
      if (refusal) context.report({ node: source, messageId: 'refused', data: { refusal } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', 'db/migrations/', 'scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The door lint: every layer's relative imports, checked against LAYERS above.
    files: ['src/**/*.ts', 'db/**/*.ts', 'tools/**/*.ts'],
    plugins: { layers: { rules: { 'import-direction': importDirection } } },
    rules: { 'layers/import-direction': 'error' },
  },
  {
    // A promise nobody awaits loses its error and its ordering: every one is awaited, returned or
    // handed on with `void` and a reason. Type-aware, so it reads the project's types.
    files: ['src/**/*.ts', 'db/**/*.ts', 'tools/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
  {
    // Tests read loosely typed JSON bodies; asserting on them is the point.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/core/**/*.ts', 'db/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: doorPackages,
              message: 'The core knows no transport: keep Express, MCP, HTTP and timers in the doors.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['tools/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['express', 'express/*'], message: 'Tool descriptors are data over the core.' }],
        },
      ],
    },
  },
);
