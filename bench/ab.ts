/**
 * The publishing benchmark of two trees side by side: `npm run bench -- publishing --against DIR
 * [--rounds 3] [publishing flags]`. DIR is another checkout of this repository (for example
 * `git worktree add /tmp/base a09751f`, with its own `node_modules`, a symlink will do). Each round
 * runs `bench/run.ts publishing --rounds 1` once in each tree, as a child process of its own,
 * alternating which goes first, and reads the figures that run prints; the load average is read
 * before and after each child, and the child's whole CPU time (user and system, every thread:
 * set-up, lag, service and raw loop) is reported beside the wall-clock figures, which swing with
 * whatever else the machine runs. Each tree measures with its own bench/publishing.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, median, REPO_ROOT, table } from './lib.ts';

interface SideRun {
  tree: string;
  revision: string;
  loadBefore: number;
  loadAfter: number;
  fanOut: number;
  /** Printed by trees whose bench measures it; NaN otherwise. */
  cpuMicrosPerItem: number;
  lagP50: number;
  lagP99: number;
  childCpuSeconds: number;
}

const number = (text: string): number => Number(text.replaceAll(',', ''));

/** Runs one tree's publishing benchmark for one round and reads what it printed. */
async function runSide(tree: string, args: string[]): Promise<SideRun> {
  const cpuReport = pathToFileURL(join(REPO_ROOT, 'bench', 'cpu-at-exit.mjs')).href;
  const loadBefore = loadavg()[0]!;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', cpuReport, 'bench/run.ts', 'publishing', ...args, '--rounds', '1'],
    { cwd: tree, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  const loadAfter = loadavg()[0]!;
  const fail = (what: string) => new Error(`${tree}: ${what} (exit ${code})\n${out.slice(-3000)}`);
  if (code !== 0) throw fail('the publishing benchmark failed');
  const round = /round 1: service ([\d,.]+) items\/s(?: \(CPU ([\d,.]+) µs per item\))?/.exec(out);
  const lag = /scheduled_for → publishing\s+([\d,.]+) ms\s+([\d,.]+) ms/.exec(out);
  const cpu = /CPU_AT_EXIT (\d+) (\d+)/.exec(out);
  const revision = /Benchmarks: publishing at (.+)/.exec(out);
  if (!round || !lag || !cpu) throw fail('could not read the figures');
  return {
    tree,
    revision: revision?.[1]?.trim() ?? '?',
    loadBefore,
    loadAfter,
    fanOut: number(round[1]!),
    cpuMicrosPerItem: round[2] ? number(round[2]) : Number.NaN,
    lagP50: number(lag[1]!),
    lagP99: number(lag[2]!),
    childCpuSeconds: (Number(cpu[1]) + Number(cpu[2])) / 1e6,
  };
}

export async function benchAgainst(
  against: string,
  rounds: number,
  settings: { lagItems: number; spreadSeconds: number; workspaces: number; throughputItems: number },
): Promise<void> {
  const args = [
    ...['--lag-items', String(settings.lagItems), '--spread-seconds', String(settings.spreadSeconds)],
    ...['--workspaces', String(settings.workspaces), '--throughput-items', String(settings.throughputItems)],
  ];
  const base = resolve(against);
  if (!existsSync(join(base, 'bench', 'run.ts'))) throw new Error(`--against ${against}: no bench/run.ts there`);
  if (!existsSync(join(base, 'node_modules'))) throw new Error(`--against ${against}: it has no node_modules`);
  const trees = [base, REPO_ROOT];
  const runs: SideRun[] = [];
  console.log(`\n== Publishing A/B: ${base} (base) against ${REPO_ROOT} (this tree), ${rounds} rounds ==`);
  for (let round = 0; round < rounds; round++) {
    for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
      const run = await runSide(tree, args);
      runs.push(run);
      console.log(
        `round ${round + 1}, ${tree === base ? 'base' : 'this tree'} (${run.revision}): fan-out ${fmt(run.fanOut)} items/s, ` +
          `lag p99 ${fmt(run.lagP99)} ms, child CPU ${fmt(run.childCpuSeconds, 1)} s, load ${run.loadBefore.toFixed(2)} → ${run.loadAfter.toFixed(2)}`,
      );
    }
  }
  const rows = runs.map((r, i) => [
    String(Math.floor(i / 2) + 1),
    r.tree === base ? 'base' : 'this tree',
    r.revision,
    `${r.loadBefore.toFixed(2)} → ${r.loadAfter.toFixed(2)}`,
    fmt(r.fanOut),
    Number.isNaN(r.cpuMicrosPerItem) ? '–' : fmt(r.cpuMicrosPerItem),
    fmt(r.lagP50),
    fmt(r.lagP99),
    fmt(r.childCpuSeconds, 1),
  ]);
  for (const [label, tree] of [
    ['base', base],
    ['this tree', REPO_ROOT],
  ] as const) {
    const side = runs.filter((r) => r.tree === tree);
    const cpu = side.map((r) => r.cpuMicrosPerItem).filter((n) => !Number.isNaN(n));
    rows.push([
      'median',
      label,
      '',
      '',
      fmt(median(side.map((r) => r.fanOut))),
      cpu.length ? fmt(median(cpu)) : '–',
      fmt(median(side.map((r) => r.lagP50))),
      fmt(median(side.map((r) => r.lagP99))),
      fmt(median(side.map((r) => r.childCpuSeconds)), 1),
    ]);
  }
  console.log(
    `\n${table(
      [
        'round',
        'tree',
        'revision',
        'load avg (1 min)',
        'fan-out items/s',
        'CPU µs/item',
        'lag p50 ms',
        'lag p99 ms',
        'child CPU s',
      ],
      rows,
    )}`,
  );
  console.log(
    `\nfan-out: ${fmt(settings.throughputItems)} items due at once to 3 sandbox platforms, from queued to finished; lag: ` +
      `scheduled_for → publishing, ${fmt(settings.lagItems)} items due over ${settings.spreadSeconds} s across ${settings.workspaces} workspaces ` +
      `(${fmt(settings.lagItems / settings.spreadSeconds)} due/s). CPU µs/item: the process's CPU time (user and system, every thread) ` +
      "during the fan-out, per item, where the tree's bench/publishing.ts measures it (a base from before this measure prints –; " +
      'apply the commit that added it to its bench/publishing.ts). Child CPU: the whole child (set-up, lag, fan-out, raw loop).',
  );
}
