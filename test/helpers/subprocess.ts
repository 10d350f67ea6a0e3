import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseForFile } from './postgres.ts';

/** The repository root: subprocesses run `node --import tsx src/cli/main.ts ...` from here. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ENTRY_ARGS = ['--import', 'tsx', 'src/cli/main.ts'];

/** Configuration variables of the service; a child starts without the parent's values of them. */
const SERVICE_VARIABLES =
  /^(PORT|HOST|LOG_LEVEL|METRICS_TOKEN|DATA_DIR|DATABASE_\w+|PUBLIC_BASE_URL|RATE_LIMIT_\w+|BODY_LIMIT_BYTES|MCP_ALLOWED_ORIGINS|RUN_SCHEDULERS|SCHEDULER_POLL_SECONDS|SERVICE_API_KEY|SERVICE_READ_ONLY|SERVICE_TOOLS|ENCRYPTION_KEY|WEBHOOK_\w+|AI_\w+|GENERATION_\w+|PUBLISH_\w+|PLATFORM_\w+|SANDBOX_\w+|\w+_APP_SECRET|X_\w+|LINKEDIN_\w+|FACEBOOK_\w+|INSTAGRAM_\w+|TIKTOK_\w+)$/;

/**
 * The environment of a service child process: the parent's without its service variables, plus
 * `extra`. In the suite's PostgreSQL run a child given a data folder (or a database file) gets
 * `DATABASE_URL` to the database standing for that file, which the test's own runtime on the file
 * shares (test/helpers/postgres.ts).
 */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !SERVICE_VARIABLES.test(name)) env[name] = value;
  }
  return { ...env, ...withTestDatabase(extra) };
}

/**
 * Service configuration `env` as this run opens it: in the suite's PostgreSQL run, given a data
 * folder (or a database file), with `DATABASE_URL` to the database standing for that file, the one
 * child processes given the same folder get. For a test's own `loadConfig` beside such children.
 */
export function withTestDatabase(env: Record<string, string>): Record<string, string> {
  const file = env.DATABASE_FILE ?? (env.DATA_DIR === undefined ? undefined : join(env.DATA_DIR, 'service.db'));
  if (process.env.TEST_ENGINE === 'postgres' && file !== undefined && env.DATABASE_URL === undefined) {
    return { DATABASE_URL: databaseForFile(file), ...env };
  }
  return env;
}

export function tempDataDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the entry to completion (killed after `timeoutMs`) and collects its output. */
export function runEntry(args: string[], env: Record<string, string>, timeoutMs = 20_000): Promise<Finished> {
  return runNode([...ENTRY_ARGS, ...args], { cwd: ROOT, env: childEnv(env) }, timeoutMs);
}

/** Runs `node <args>` to completion (killed after `timeoutMs`) and collects its output. */
export function runNode(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
  timeoutMs = 20_000,
): Promise<Finished> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/** A long-running child (such as `serve`) whose output can be awaited line by line. */
export interface RunningProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` on stdout; rejects on exit or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends SIGTERM and resolves with the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

export function startEntry(args: string[], env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, [...ENTRY_ARGS, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let exited = false;
  const exit = new Promise<number | null>((resolvePromise) =>
    child.on('exit', (code) => {
      exited = true;
      resolvePromise(code);
    }),
  );
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((resolvePromise, reject) => {
        const check = () => {
          const match = out.match(pattern);
          if (match) {
            done();
            resolvePromise(match);
          }
        };
        const onExit = () => {
          done();
          reject(new Error(`process exited before printing ${pattern}; stdout: ${out}; stderr: ${err}`));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${pattern}; stdout: ${out}; stderr: ${err}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.off('exit', onExit);
        };
        child.stdout!.on('data', check);
        child.on('exit', onExit);
        if (exited) onExit();
        else check();
      });
    },
    async stop(graceMs = 10_000) {
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        const code = await exit;
        clearTimeout(timer);
        return code;
      }
      return exit;
    },
  };
}
