import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The import-direction rule (db ← src/core ← tools; doors on top) is enforced by lint; these prove it bites. */
describe('import direction', () => {
  const eslint = new ESLint({ cwd: process.cwd() });
  const restrictedIn = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath });
    return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').length;
  };

  it('refuses Express, the MCP SDK and the doors inside src/core', async () => {
    expect(await restrictedIn('src/core/probe.ts', "import express from 'express';\nexport default express;\n")).toBe(
      1,
    );
    expect(
      await restrictedIn(
        'src/core/probe.ts',
        "import { Server } from '@modelcontextprotocol/server';\nexport default Server;\n",
      ),
    ).toBe(1);
    expect(
      await restrictedIn(
        'src/core/content/probe.ts',
        "import { createApp } from '../../rest/app.ts';\nexport default createApp;\n",
      ),
    ).toBe(1);
    expect(
      await restrictedIn(
        'src/core/probe.ts',
        "import { serveMcpStdio } from '../mcp/stdio.ts';\nexport default serveMcpStdio;\n",
      ),
    ).toBe(1);
  });

  it('refuses src/ inside db/ and doors inside tools/', async () => {
    expect(
      await restrictedIn('db/probe.ts', "import { newId } from '../src/core/ids.ts';\nexport default newId;\n"),
    ).toBe(1);
    expect(
      await restrictedIn(
        'tools/probe.ts',
        "import { createApp } from '../src/rest/app.ts';\nexport default createApp;\n",
      ),
    ).toBe(1);
  });

  it('lets the doors use the core', async () => {
    expect(
      await restrictedIn('src/rest/probe.ts', "import { newId } from '../core/ids.ts';\nexport default newId;\n"),
    ).toBe(0);
    expect(
      await restrictedIn('tools/probe.ts', "import { newId } from '../src/core/ids.ts';\nexport default newId;\n"),
    ).toBe(0);
  });
});
