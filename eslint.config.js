// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Imports flow one way: db <- src/core <- tools; the doors (rest, mcp, jobs, cli) sit on top. */
const doorPackages = ['express', 'express/*', '@modelcontextprotocol/*', 'http', 'node:http', 'croner'];
const doorFolders = ['**/rest/**', '**/rest', '**/mcp/**', '**/mcp', '**/jobs/**', '**/jobs', '**/cli/**', '**/cli'];

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
            { group: doorFolders, message: 'The core must not import a door (rest, mcp, jobs, cli).' },
            { group: ['**/tools/**', '**/tools'], message: 'tools/ sits above the core, not below it.' },
          ],
        },
      ],
    },
  },
  {
    files: ['db/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/src/**', '**/src', '**/tools/**'], message: 'db/ is the bottom layer.' }] },
      ],
    },
  },
  {
    files: ['tools/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['express', 'express/*'], message: 'Tool descriptors are data over the core.' },
            { group: doorFolders, message: 'Tool descriptors depend on the core only.' },
          ],
        },
      ],
    },
  },
);
