import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/core/accounts/workspaces.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { Runtime } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { TOOLS } from '../../tools/index.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { childEnv, ROOT, runNode, tempDataDir, withTestDatabase } from '../helpers/subprocess.ts';

const SLOW = 90_000;

/** The MCP Inspector's CLI (@modelcontextprotocol/inspector-cli, pinned at 1.0.3 in package.json). */
const INSPECTOR = join(ROOT, 'node_modules/.bin/mcp-inspector-cli');
/**
 * inspector-cli 1.0.3 reads its own version with `existsSync("../package.json")` relative to the
 * working directory, then imports that path relative to its module: it only starts from a directory
 * whose parent holds a package.json. Its build directory is the one it was written for.
 */
const INSPECTOR_CWD = join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build');
/** How the Inspector launches our stdio server; absolute, since it runs from INSPECTOR_CWD. */
const STDIO_SERVER = [join(ROOT, 'node_modules/.bin/tsx'), join(ROOT, 'src/cli/main.ts'), 'mcp'];

/** What `--method tools/call` prints: the CallToolResult. */
interface InspectedCall {
  content: Array<{ type: string; text: string }>;
  structuredContent: any;
  isError?: boolean;
}

/**
 * Runs `mcp-inspector-cli --cli <target> <method args>` to completion and parses the JSON it prints
 * on stdout. The Inspector is a separate program: nothing of ours is in its process.
 */
async function inspect(target: string[], method: string[]): Promise<any> {
  const run = await runNode(
    [INSPECTOR, '--cli', ...target, ...method],
    { cwd: INSPECTOR_CWD, env: childEnv({}) },
    60_000,
  );
  if (run.code !== 0)
    throw new Error(`Inspector exited ${run.code ?? run.signal}:\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** A tools/call that succeeded: its text block holds the same JSON as structuredContent. */
function succeeded(result: InspectedCall): any {
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  expect(result.content).toHaveLength(1);
  expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

describe('the MCP Inspector CLI drives both transports', () => {
  const data = tempDataDir('mcp-inspector');
  let runtime: Runtime;
  let server: TestServer;
  let apiKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    runtime = await openRuntime({
      config: loadConfig(withTestDatabase({ DATA_DIR: data.dir, PUBLIC_BASE_URL: 'http://127.0.0.1:3000' })),
    });
    ({
      apiKey,
      workspace: { id: workspaceId },
    } = await createWorkspace(runtime, { name: 'Inspector workspace' }));
    server = await startTestServer(runtime);
  });
  afterAll(async () => {
    await server?.close();
    await runtime?.db.$store.close();
    data.remove();
  });

  const transports = {
    // The Inspector spawns `main.ts mcp` itself, passing the variables given with -e.
    // In the PostgreSQL run the data folder stands for a database, which DATABASE_URL names.
    stdio: () => [
      ...Object.entries(withTestDatabase({ DATA_DIR: data.dir })).flatMap(([name, value]) => [
        '-e',
        `${name}=${value}`,
      ]),
      '-e',
      `SERVICE_API_KEY=${apiKey}`,
      ...STDIO_SERVER,
    ],
    'streamable HTTP': () => [
      `${server.url}/mcp`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${apiKey}`,
    ],
  };

  for (const [transport, target] of Object.entries(transports)) {
    describe(`over ${transport}`, () => {
      it(
        'lists the twenty tools in the fixed order, each with its declared title and annotations',
        async () => {
          const { tools } = await inspect(target(), ['--method', 'tools/list']);
          expect(tools.map((tool: any) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
          expect(tools).toHaveLength(20);
          TOOLS.forEach((declared, i) => {
            expect(tools[i].title, declared.name).toBe(declared.title);
            expect(tools[i].annotations, declared.name).toEqual({ title: declared.title, ...declared.annotations });
            expect(tools[i].inputSchema.type, declared.name).toBe('object');
            expect(tools[i].outputSchema?.type, declared.name).toBe('object');
          });
          // Spot checks against the spec's classes, independent of the descriptors read above.
          const annotationsOf = (name: string) => tools.find((tool: any) => tool.name === name).annotations;
          expect(annotationsOf('service_list_content')).toMatchObject({ readOnlyHint: true, destructiveHint: false });
          expect(annotationsOf('service_delete_content')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
          expect(annotationsOf('service_publish_content')).toMatchObject({ readOnlyHint: false, openWorldHint: true });
        },
        SLOW,
      );

      it(
        'prints a failing call as isError with the code in its text, and no structuredContent to fail the schema',
        async () => {
          const result: InspectedCall = await inspect(target(), [
            '--method',
            'tools/call',
            '--tool-name',
            'service_get_content',
            '--tool-arg',
            'id=00000000-0000-4000-8000-000000000000',
          ]);
          expect(result.isError).toBe(true);
          expect(result.structuredContent).toBeUndefined();
          expect(result.content).toHaveLength(1);
          expect(JSON.parse(result.content[0].text).error).toMatchObject({ code: 'not_found' });
        },
        SLOW,
      );

      it(
        'calls a read tool and a write tool, and the write is visible afterwards',
        async () => {
          const account = succeeded(
            await inspect(target(), ['--method', 'tools/call', '--tool-name', 'service_get_account']),
          );
          expect(account).toMatchObject({ object: 'account', workspace_id: workspaceId, plan: 'pro' });

          const caption = `Written by the MCP Inspector over ${transport}`;
          const created = succeeded(
            await inspect(target(), [
              '--method',
              'tools/call',
              '--tool-name',
              'service_create_content',
              '--tool-arg',
              `caption=${caption}`,
              'hashtags=["#inspector"]',
              'target_platforms=["linkedin"]',
            ]),
          );
          expect(created).toMatchObject({
            object: 'content',
            caption,
            hashtags: ['inspector'],
            target_platforms: ['linkedin'],
            status: 'draft',
          });

          // A later session of the Inspector reads it back through a read tool, and REST sees it too.
          const fetched = succeeded(
            await inspect(target(), [
              '--method',
              'tools/call',
              '--tool-name',
              'service_get_content',
              '--tool-arg',
              `id=${created.id}`,
            ]),
          );
          expect(fetched).toEqual(created);
          const listed = succeeded(
            await inspect(target(), ['--method', 'tools/call', '--tool-name', 'service_list_content']),
          );
          expect(listed.data.map((item: any) => item.id)).toContain(created.id);
          const viaRest = await call(server, 'GET', `/api/v1/content/${created.id}`, {
            headers: { authorization: `Bearer ${apiKey}` },
          });
          expect(viaRest.status).toBe(200);
          expect(viaRest.body).toEqual(created);
        },
        SLOW,
      );
    });
  }
});
