/**
 * Fails when a schema folder has changed without its migration: for each engine, runs `drizzle-kit
 * generate` into a temporary copy of that engine's migrations folder (the real one is never written)
 * and reports the engine whose copy gained a file. Run: `npm run db:check`.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The package exports neither its bin nor its package.json: the bin sits beside its main file.
const drizzleKit = join(dirname(createRequire(import.meta.url).resolve('drizzle-kit')), 'bin.cjs');

/** drizzle-kit asks about a possible rename on a terminal, and waits forever for an answer without one. */
const GENERATE_TIMEOUT_MS = 60_000;

interface Engine {
  name: string;
  config: string;
}

const ENGINES: Engine[] = [
  { name: 'SQLite', config: 'drizzle.config.ts' },
  { name: 'PostgreSQL', config: 'drizzle-pg.config.ts' },
];

interface DrizzleConfig {
  dialect: string;
  schema: string;
  out: string;
}

/** Every file under `folder`, as paths relative to it. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1))
    .sort();
}

function runGenerate(config: DrizzleConfig, out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(
      process.execPath,
      [drizzleKit, 'generate', '--dialect', config.dialect, '--schema', config.schema, '--out', out],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      output +=
        '\n(drizzle-kit was stopped: it was waiting for an answer, which it asks when a column or table may have been renamed)';
    }, GENERATE_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, output });
    });
  });
}

/** Null when the engine's migrations match its schema; otherwise what is wrong, naming the engine. */
async function checkEngine(engine: Engine): Promise<string | null> {
  const config = ((await import(join(root, engine.config))) as { default: DrizzleConfig }).default;
  const migrations = resolve(root, config.out);
  // Inside the project and named relatively: drizzle-kit prefixes `./` to --out, so an absolute
  // temporary path fails (and it exits 0 on that failure, hence the check of its words below).
  const scratch = mkdtempSync(join(root, '.migrations-check-'));
  try {
    const copy = join(scratch, 'migrations');
    cpSync(migrations, copy, { recursive: true });
    const before = filesUnder(copy);
    const { code, output } = await runGenerate(config, relative(root, copy));
    const added = filesUnder(copy).filter((file) => !before.includes(file));
    const unchanged = code === 0 && added.length === 0 && output.includes('No schema changes');
    if (!unchanged) {
      const what =
        added.length > 0
          ? `drizzle-kit would write a new migration (${added.join(', ')})`
          : /Interactive prompts require a TTY/.test(output)
            ? 'drizzle-kit asks whether a column or table was renamed (the schema changed without a migration)'
            : `drizzle-kit generate did not confirm "No schema changes" (exit ${code})`;
      return `${engine.name}: the migrations in ${config.out} do not match ${config.schema}: ${what}. Run \`npx drizzle-kit generate --config ${engine.config}\` and commit the result.\n${output.trim()}`;
    }
    return null;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const problems: string[] = [];
  for (const engine of ENGINES) {
    const problem = await checkEngine(engine);
    if (problem) problems.push(problem);
    else console.log(`${engine.name}: migrations are up to date.`);
  }
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    process.exitCode = 1;
  }
}

await main();
