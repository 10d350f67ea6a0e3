/**
 * Benchmark entry: `npm run bench [-- rest list stdio] [--seconds N] [--warmup N] [--connections N]
 * [--calls N] [--sizes 10000,1000000] [--in-flight N] [--rounds N] [--lag-items N] [--spread-seconds N]
 * [--throughput-items N] [--dashboard-items N] [--db postgres://…] [--strict]`. With no names it runs them all.
 *
 *   rest   GET /api/v1/content/{id} and POST /api/v1/content: service vs a bare Express 5 app (and
 *          the GET with an OAuth access token vs with the API key)
 *   mcp    tools/call service_get_content over HTTP as 2026-07-28 requests vs GET /api/v1/content/{id}
 *          on the same server, same connections, median of at least 3 interleaved rounds
 *   list   listContent page latency at 10k and 1M items in one workspace (in process)
 *   stdio  service_get_content over stdio MCP: service vs a minimal SDK server
 *   publishing  lag from scheduled_for to publishing, and fan-out items/s vs a raw claim+update loop
 *   webhooks    deliveries/s vs a raw HTTP POST loop, and event-to-first-attempt latency
 *   live   text posts to the fake X and the fake Bluesky, 64 at a time: publishing-run items/s vs raw
 *          create calls (--live-items N)
 *   instagram  image posts to the fake Instagram, 64 at a time: publishing-run items/s vs raw container,
 *          status and publish calls (--instagram-items N)
 *   dashboard   the approval inbox page (50 items with previews, signed in) vs GET /api/v1/content?status=pending_review&limit=50
 *          on the same server, 10,000 pending items, median of at least 3 interleaved rounds (--dashboard-items N)
 *   generation  time to generate a 50/day x 365-day campaign vs a raw insert of the same rows
 *   media  server RSS while receiving a 50 MB upload vs its idle RSS (--media-mb N)
 *          --against DIR runs this group in another checkout DIR too, side by side: per round one child
 *          per tree, alternating which goes first (bench/ab.ts); `git worktree add /tmp/base <commit>` and a
 *          node_modules symlink make one
 *   soak   10 minutes of mixed REST, MCP, publishing and webhook traffic against the real server:
 *          errors by status, throughput, p99, RSS growth (--soak-minutes N, --soak-warmup-seconds N,
 *          a 7-minute warm-up by default: see SoakSettings.warmupSeconds). Only when named: it is
 *          not part of the default set.
 *
 * --db postgres://user:password@host:port/database runs rest, publishing, webhooks and generation on
 * PostgreSQL as well as on SQLite (the other groups stay SQLite only): each measurement there gets a
 * fresh empty database made on that server (`bench_<random>`, dropped after; the user needs CREATEDB),
 * and its figure is set beside SQLite's of the same run, in rows named "…, PostgreSQL vs SQLite":
 *
 *   rest        GET /content/{id} and POST /content req/s, a second service child on PostgreSQL
 *               interleaved with the SQLite one (targets: GET >= 0.5, POST >= 0.35 of SQLite)
 *   publishing  lag p50/p99 on PostgreSQL against 250 ms (target p99 <= 250 ms), fan-out items/s
 *               against SQLite's
 *   webhooks    deliveries/s against SQLite's, and the event-to-first-attempt latency
 *   generation  campaign generation time against SQLite's
 *
 * The raw limit loops (publishing's claim+update, generation's insert) are better-sqlite3's own and
 * run on SQLite only: on PostgreSQL the limit is the SQLite figure. Without --db nothing runs on
 * PostgreSQL, and a DATABASE_URL in the environment reaches no child (lib.ts childEnv).
 *
 * Each figure is measured next to its limit in the same run and printed as a ratio; the summary
 * table at the end marks the targets. --strict makes a missed target exit non-zero; a failed
 * measurement (non-2xx, a tool error, a crashed child) always does.
 */
import { availableParallelism, cpus, loadavg, totalmem, type as osType, release } from 'node:os';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { benchAgainst } from './ab.ts';
import { benchDashboard } from './dashboard.ts';
import { createItem, createWorkspaceViaCli, oauthAccessToken } from './fixtures.ts';
import { benchGeneration } from './generation.ts';
import { benchList } from './list.ts';
import { benchLive } from './live.ts';
import { benchLiveInstagram } from './live-instagram.ts';
import { benchMcp } from './mcp.ts';
import { benchMedia } from './media.ts';
import { describeServer, POSTGRES_GROUPS, postgresServer } from './postgres.ts';
import { benchPublishing } from './publishing.ts';
import { benchWebhooks } from './webhooks.ts';
import {
  childEnv,
  passes,
  RAISED_LIMITS,
  REPO_ROOT,
  startHttpChild,
  summaryTable,
  tempDir,
  type HttpChild,
  type Row,
} from './lib.ts';
import { benchRest, benchRestOnPostgres, startBaseline, startServiceOnPostgres } from './rest.ts';
import { benchSoak } from './soak.ts';
import { benchStdio } from './stdio.ts';

const GROUPS = [
  'rest',
  'mcp',
  'list',
  'stdio',
  'publishing',
  'live',
  'instagram',
  'webhooks',
  'generation',
  'media',
  'dashboard',
] as const;
/** Groups run only when named: the soak takes ten minutes. */
const NAMED_ONLY_GROUPS = ['soak'] as const;
type Group = (typeof GROUPS)[number] | (typeof NAMED_ONLY_GROUPS)[number];

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    'stdio-seconds': { type: 'string', default: '5' },
    'in-flight': { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    calls: { type: 'string', default: '3000' },
    sizes: { type: 'string', default: '10000,1000000' },
    'lag-items': { type: 'string', default: '10000' },
    'spread-seconds': { type: 'string', default: '10' },
    workspaces: { type: 'string', default: '100' },
    'throughput-items': { type: 'string', default: '5000' },
    'live-items': { type: 'string', default: '2000' },
    'instagram-items': { type: 'string', default: '1000' },
    'webhook-events': { type: 'string', default: '5000' },
    'webhook-rate': { type: 'string', default: '200' },
    'webhook-seconds': { type: 'string', default: '5' },
    'media-mb': { type: 'string', default: '50' },
    'dashboard-items': { type: 'string', default: '10000' },
    'soak-minutes': { type: 'string', default: '10' },
    'soak-warmup-seconds': { type: 'string', default: '420' },
    against: { type: 'string' },
    db: { type: 'string' },
    strict: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

function positiveNumber(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${raw}`);
  return n;
}

/** The commit measured, and whether the code under test differs from it. */
function revision(): string {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--', 'src', 'db', 'tools', 'package.json').length > 0;
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in src/db/tools' : ''}`;
  } catch {
    return 'unknown revision';
  }
}

async function main(): Promise<number> {
  if (values.help) {
    console.log(
      'Usage: npm run bench -- [rest] [mcp] [list] [stdio] [publishing] [--seconds 10] [--warmup 3] [--connections 10] [--stdio-seconds 5] ' +
        '[--in-flight 8] [--rounds 2] [--calls 3000] [--sizes 10000,1000000] [--lag-items 10000] [--spread-seconds 10] [--workspaces 100] ' +
        '[--throughput-items 5000] [--live-items 2000] [--instagram-items 1000] [--webhook-events 5000] [--webhook-rate 200] [--webhook-seconds 5] [--media-mb 50] [--dashboard-items 10000] [--db postgres://…] [--strict]\n' +
        '       npm run bench -- publishing --against DIR [--rounds 3]   (this tree and the checkout DIR side by side, alternating)\n' +
        '       npm run bench -- soak [--soak-minutes 10] [--soak-warmup-seconds 420]   (the soak runs only when named)\n' +
        `       --db postgres://user:password@host:port/database   (${POSTGRES_GROUPS.join(', ')} on PostgreSQL too, beside SQLite; ` +
        'a fresh database bench_<random> on that server per measurement, dropped after)',
    );
    return 0;
  }
  const known: readonly string[] = [...GROUPS, ...NAMED_ONLY_GROUPS];
  const unknown = positionals.filter((p) => !known.includes(p));
  if (unknown.length) throw new Error(`Unknown benchmark ${unknown.join(', ')}; choose from ${known.join(', ')}.`);
  const selected = new Set<Group>(positionals.length ? (positionals as Group[]) : GROUPS);
  const seconds = positiveNumber('seconds', values.seconds);
  const warmupSeconds = Number(values.warmup);
  const sizes = values.sizes.split(',').map((s) => positiveNumber('sizes', s));
  if (sizes.length !== 2) throw new Error('--sizes takes two sizes, small and large');

  const rounds = Math.round(positiveNumber('rounds', values.rounds));
  if (values.against !== undefined && (selected.size !== 1 || !selected.has('publishing')))
    throw new Error('--against compares the publishing group only: npm run bench -- publishing --against DIR');
  const postgres = values.db === undefined ? undefined : postgresServer(values.db);
  if (postgres !== undefined && values.against !== undefined)
    throw new Error('--against compares two trees on SQLite; run --db without it');
  const onPostgres = (group: Group) => postgres !== undefined && (POSTGRES_GROUPS as readonly string[]).includes(group);
  if (postgres !== undefined && ![...selected].some(onPostgres))
    throw new Error(`--db applies to ${POSTGRES_GROUPS.join(', ')}; none of them is selected`);
  const started = new Date();
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
  console.log(`Benchmarks: ${[...selected].join(', ')} at ${revision()}`);
  console.log(
    `Node ${process.version}, ${osType()} ${release()}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ` +
      `${(totalmem() / 2 ** 30).toFixed(0)} GiB, started ${started.toISOString()}, load average ${load()}`,
  );
  if (postgres !== undefined)
    console.log(
      `PostgreSQL at ${describeServer(postgres)} too, for ${[...selected].filter(onPostgres).join(', ')}; the other groups run on SQLite only`,
    );

  if (values.against !== undefined) {
    await benchAgainst(values.against, rounds, {
      lagItems: positiveNumber('lag-items', values['lag-items']),
      spreadSeconds: positiveNumber('spread-seconds', values['spread-seconds']),
      workspaces: positiveNumber('workspaces', values.workspaces),
      throughputItems: positiveNumber('throughput-items', values['throughput-items']),
    });
    console.log(`\nload average at the end ${load()}`);
    return 0;
  }

  const rows: Row[] = [];
  if (selected.has('rest') || selected.has('mcp') || selected.has('stdio')) {
    const data = tempDir('service');
    const servers: HttpChild[] = [];
    try {
      const fixture = await createWorkspaceViaCli(data.path);
      const service = await startHttpChild(
        'service',
        'src/cli/main.ts',
        ['serve'],
        childEnv({ PORT: '0', DATA_DIR: data.path, ...RAISED_LIMITS }),
      );
      servers.push(service);
      const item = await createItem(service.url, fixture).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}\nservice log:\n${service.log()}`, { cause: error });
      });
      console.log(
        `service at ${service.url}, workspace ${fixture.workspaceId}, item ${item.id} (${JSON.stringify(item.body).length}-byte body)`,
      );
      if (selected.has('rest')) {
        const baseline = await startBaseline(item.file);
        servers.push(baseline);
        console.log(`bare Express at ${baseline.url}`);
        const restSettings = {
          connections: positiveNumber('connections', values.connections),
          warmupSeconds,
          seconds,
          rounds,
        };
        rows.push(
          ...(await benchRest(
            service,
            baseline,
            fixture,
            item.id,
            await oauthAccessToken(service.url, fixture),
            restSettings,
          )),
        );
        if (postgres !== undefined) {
          // Only while it is measured: the MCP and stdio groups after it are SQLite's alone.
          const onPg = await startServiceOnPostgres(postgres);
          try {
            rows.push(...(await benchRestOnPostgres({ service, fixture, itemId: item.id }, onPg.target, restSettings)));
          } finally {
            await onPg.close();
          }
        }
      }
      if (selected.has('mcp')) {
        rows.push(
          ...(await benchMcp(service, fixture, item.id, {
            connections: positiveNumber('connections', values.connections),
            warmupSeconds,
            seconds,
            rounds,
          })),
        );
      }
      for (const server of servers.splice(0)) await server.stop();
      if (selected.has('stdio')) {
        rows.push(
          ...(await benchStdio(fixture, item.id, item.file, {
            seconds: positiveNumber('stdio-seconds', values['stdio-seconds']),
            warmupSeconds: Math.min(warmupSeconds, 2),
            inFlight: positiveNumber('in-flight', values['in-flight']),
            rounds,
          })),
        );
      }
    } finally {
      for (const server of servers) await server.stop();
      data.cleanup();
    }
  }
  if (selected.has('list')) {
    rows.push(
      ...(await benchList({
        sizes,
        calls: positiveNumber('calls', values.calls),
        warmupCalls: 300,
        maxSecondsPerScenario: 30,
      })),
    );
  }

  if (selected.has('publishing')) {
    rows.push(
      ...(await benchPublishing({
        lagItems: positiveNumber('lag-items', values['lag-items']),
        spreadSeconds: positiveNumber('spread-seconds', values['spread-seconds']),
        workspaces: positiveNumber('workspaces', values.workspaces),
        throughputItems: positiveNumber('throughput-items', values['throughput-items']),
        rounds,
        postgres,
      })),
    );
  }

  if (selected.has('live')) {
    rows.push(
      ...(await benchLive({ items: positiveNumber('live-items', values['live-items']), concurrency: 64, rounds })),
    );
  }

  if (selected.has('instagram')) {
    rows.push(
      ...(await benchLiveInstagram({
        items: positiveNumber('instagram-items', values['instagram-items']),
        concurrency: 64,
        rounds,
      })),
    );
  }

  if (selected.has('webhooks')) {
    rows.push(
      ...(await benchWebhooks({
        events: positiveNumber('webhook-events', values['webhook-events']),
        rate: positiveNumber('webhook-rate', values['webhook-rate']),
        latencySeconds: positiveNumber('webhook-seconds', values['webhook-seconds']),
        rounds,
        postgres,
      })),
    );
  }

  if (selected.has('generation')) rows.push(...(await benchGeneration({ rounds, postgres })));

  if (selected.has('media'))
    rows.push(...(await benchMedia({ sizeMb: positiveNumber('media-mb', values['media-mb']), rounds })));

  if (selected.has('dashboard')) {
    rows.push(
      ...(await benchDashboard({
        items: positiveNumber('dashboard-items', values['dashboard-items']),
        connections: positiveNumber('connections', values.connections),
        warmupSeconds,
        seconds,
        rounds,
      })),
    );
  }

  if (selected.has('soak')) {
    const minutes = positiveNumber('soak-minutes', values['soak-minutes']);
    rows.push(
      ...(await benchSoak({
        minutes,
        warmupSeconds: positiveNumber('soak-warmup-seconds', values['soak-warmup-seconds']),
      })),
    );
  }

  console.log(
    `\n== Summary (${new Date().toISOString()}, ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s, load average ${load()}) ==`,
  );
  console.log(summaryTable(rows));
  const missed = rows.filter((r) => passes(r) === false);
  if (missed.length) console.log(`\nMissed targets: ${missed.map((r) => r.name).join('; ')}`);
  return values.strict && missed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`\nBENCHMARK FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
