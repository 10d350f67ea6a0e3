/**
 * Shared plumbing for the benchmarks: child processes (servers under test never share the bench's
 * event loop), temp directories, autocannon runs with strict response checks, percentiles and the
 * result rows the summary table prints.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Rate limits raised by configuration only, so the buckets never refuse a benchmark request. */
export const RAISED_LIMITS = {
  RATE_LIMIT_READ: '1000000000',
  RATE_LIMIT_WRITE: '1000000000',
  RATE_LIMIT_PUBLISH: '1000000000',
  RATE_LIMIT_MEDIA: '1000000000',
} as const;

/**
 * The environment a child starts with: ours minus anything that would point it at another database.
 * DATABASE_URL too: a PostgreSQL run passes its own database in `extra`, and a SQLite run must never
 * inherit one from the shell.
 */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k === 'DATABASE_FILE' || k === 'DATABASE_URL' || k === 'PUBLIC_BASE_URL') continue;
    if (k.startsWith('RATE_LIMIT_')) continue;
    env[k] = v;
  }
  return { ...env, NODE_ENV: 'production', HOST: '127.0.0.1', ...extra };
}

/**
 * A temp directory that is removed by `cleanup()` (also on exit, in case a benchmark throws). A
 * cleaned-up directory stops listening for the exit: a full run makes dozens of them, and each left
 * listening was one more `exit` listener on process (Node's MaxListenersExceededWarning past ten).
 */
export function tempDir(label: string): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), `bench-${label}-`));
  let done = false;
  const cleanup = () => {
    if (done) return;
    done = true;
    process.off('exit', cleanup);
    rmSync(path, { recursive: true, force: true });
  };
  process.once('exit', cleanup);
  return { path, cleanup };
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

export interface HttpChild {
  name: string;
  url: string;
  child: ChildProcess;
  /** Recent output, for error messages. */
  log: () => string;
  stop: () => Promise<void>;
}

/** Runs `node --import tsx <script> ...args` and waits (at most 60 s) for it to print 'Listening on http://…'. */
export async function startHttpChild(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<HttpChild> {
  const extraNodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...extraNodeArgs, '--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const lines: string[] = [];
  const remember = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(line);
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  child.stderr!.on('data', remember);
  const log = () => lines.join('\n');

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name}: no 'Listening on' within 60 s.\n${log()}`)), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      remember(chunk);
      const match = /Listening on (http:\/\/[^\s]+)/.exec(log());
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code, signal) =>
      fail(new Error(`${name} exited (${code ?? signal}) before listening.\n${log()}`)),
    );
    child.once('error', fail);
  });

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
    await exited;
    clearTimeout(timer);
    children.delete(child);
  };
  return { name, url, child, log, stop };
}

/** Runs a short-lived `node --import tsx <script> ...args` and returns its stdout (fails on a non-zero exit or after 60 s). */
export function runChild(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolve(out);
      else reject(new Error(`${script} ${args.join(' ')} failed (${code ?? signal}):\n${out}\n${err}`));
    });
  });
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  total: number;
  p50: number;
  p99: number;
}

/** One autocannon run; throws (loudly) when any response was not 2xx, errored or timed out. */
async function cannon(label: string, options: LoadOptions, seconds: number): Promise<autocannon.Result> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  });
  const problems: string[] = [];
  if (result.non2xx > 0)
    problems.push(`${result.non2xx} non-2xx responses (4xx ${result['4xx']}, 5xx ${result['5xx']})`);
  if (result.errors > 0) problems.push(`${result.errors} errors`);
  if (result.timeouts > 0) problems.push(`${result.timeouts} timeouts`);
  if (result.requests.total === 0) problems.push('no requests completed');
  if (problems.length)
    throw new Error(`${label}: ${problems.join(', ')} against ${options.method ?? 'GET'} ${options.url}`);
  return result;
}

/**
 * Measures two servers side by side: a warm-up of each (discarded), then `rounds` alternating runs in
 * ABBA order, so a neighbour's load or a warming cache lands on both alike. Each side gets `seconds`
 * in total; req/s is its requests over its measured time; p50 is the mean of the rounds', p99 the worst.
 */
export async function compareLoad(
  sides: Array<{ label: string; options: LoadOptions }>,
  rounds: number,
): Promise<Array<LoadResult & { perRound: number[] }>> {
  for (const side of sides) {
    if (side.options.warmupSeconds > 0)
      await cannon(`${side.label} (warm-up)`, side.options, side.options.warmupSeconds);
  }
  const collected = sides.map(() => [] as autocannon.Result[]);
  for (let round = 0; round < rounds; round++) {
    const order = sides.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      collected[i].push(
        await cannon(sides[i].label, sides[i].options, Math.max(1, Math.round(sides[i].options.seconds / rounds))),
      );
    }
  }
  return collected.map((results) => {
    const total = results.reduce((sum, r) => sum + r.requests.total, 0);
    const duration = results.reduce((sum, r) => sum + r.duration, 0);
    return {
      requestsPerSecond: total / duration,
      total,
      p50: results.reduce((sum, r) => sum + r.latency.p50, 0) / results.length,
      p99: Math.max(...results.map((r) => r.latency.p99)),
      perRound: results.map((r) => r.requests.total / r.duration),
    };
  });
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The CPU time (user and system) a process has used so far, in µs; undefined where /proc is not there. */
function cpuMicros(pid: number): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return undefined;
  // Fields after the command name, which ends with ') ': state is the first, utime the 12th, stime the 13th.
  const fields = readFileSync(stat, 'utf8').split(') ').at(-1)!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicks();
}

let ticks: number | undefined;
/** Clock ticks per second, the unit of /proc's CPU times (100 on common kernels). */
function clockTicks(): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticks;
}

/**
 * The server's CPU time (user and system, from /proc) per answered request under each side's load,
 * each run `rounds` times in alternating order for the same time as a throughput round; the medians,
 * in µs, in the sides' order, or undefined where /proc is not there. On a machine others share, a
 * neighbour's burst moves throughput far more than it moves the CPU a request costs, so this says
 * what the throughput ratio should be once the machine is quiet.
 */
export async function cpuPerRequest(
  pid: number | undefined,
  sides: Array<{ label: string; options: LoadOptions }>,
  rounds: number,
): Promise<number[] | undefined> {
  if (pid === undefined || cpuMicros(pid) === undefined) return undefined;
  const perRequest = sides.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    const order = sides.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const { label, options } = sides[i]!;
      const before = cpuMicros(pid)!;
      const result = await cannon(`${label} (CPU)`, options, Math.max(1, Math.round(options.seconds / rounds)));
      perRequest[i]!.push((cpuMicros(pid)! - before) / result.requests.total);
    }
  }
  console.log(
    `Server CPU per request, µs: ${sides
      .map(({ label }, i) => `${label} ${perRequest[i]!.map((n) => fmt(n)).join(' / ')}`)
      .join('; ')}; medians ${perRequest.map((values) => fmt(median(values))).join(' and ')}`,
  );
  return perRequest.map(median);
}

/** A memory figure of a process, in bytes, from /proc/<pid>/status (Linux only): VmRSS now, or VmHWM, its peak. */
export function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`No ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface Target {
  op: '>=' | '<=';
  value: number;
}

/** One line of the summary: the project's figure, its limit's figure and their ratio. */
export interface Row {
  name: string;
  unit: string;
  project: number;
  limit: number;
  /** project / limit. */
  ratio: number;
  target?: Target;
  note?: string;
}

export const passes = (row: Row): boolean | undefined =>
  row.target === undefined
    ? undefined
    : row.target.op === '>='
      ? row.ratio >= row.target.value
      : row.ratio <= row.target.value;

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : String(n);

/** Fixed-width text table. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function summaryTable(rows: Row[]): string {
  return table(
    ['benchmark', 'project', 'limit', 'unit', 'ratio', 'target', 'result'],
    rows.map((r) => {
      const pass = passes(r);
      return [
        r.name,
        fmt(r.project, r.project < 10 ? 3 : 0),
        fmt(r.limit, r.limit < 10 ? 3 : 0),
        r.unit,
        fmt(r.ratio, 2),
        r.target ? `${r.target.op} ${r.target.value}` : '-',
        pass === undefined ? 'info' : pass ? 'PASS' : 'FAIL',
      ];
    }),
  );
}

/** Waits (polling every `intervalMs`) until `check` holds; throws with `what` after `timeoutSeconds`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutSeconds: number,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A loop guard: true while under both the time budget and the count budget. */
export function budget(seconds: number, maxCount: number): { more: (count: number) => boolean } {
  const deadline = performance.now() + seconds * 1000;
  return { more: (count) => count < maxCount && performance.now() < deadline };
}

/**
 * Closes a benchmark's in-process runtime and what it was made on: its checkpointer, its store, its
 * PostgreSQL database when it had one, and last its temporary folder, whatever failed before.
 */
export async function closeBenchRuntime(parts: {
  checkpointer: { stop(): Promise<void> };
  runtime: { db: { $store: { close(): Promise<void> } } };
  database?: { drop(): Promise<void> };
  dir: { cleanup(): void };
}): Promise<void> {
  try {
    await parts.checkpointer.stop();
    await parts.runtime.db.$store.close();
    await parts.database?.drop();
  } finally {
    parts.dir.cleanup();
  }
}
