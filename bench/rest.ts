/**
 * REST throughput: the service's GET /api/v1/content/{id} and POST /api/v1/content against a bare
 * Express 5 app answering the same routes with objects of the same shape and size. The GET also runs
 * with an OAuth access token instead of the API key, to show what the token lookup costs. Both servers are
 * child processes; autocannon drives them from this process with the same connection count.
 *
 * With `--db`, the same GET and POST also run against a second service child on a fresh PostgreSQL
 * database, interleaved with the SQLite service of the same run: PostgreSQL's req/s against SQLite's.
 */
import { CREATE_BODY, createItem, createWorkspaceViaCli, type Fixture } from './fixtures.ts';
import {
  childEnv,
  compareLoad,
  fmt,
  RAISED_LIMITS,
  startHttpChild,
  table,
  tempDir,
  type HttpChild,
  type LoadResult,
  type Row,
} from './lib.ts';
import { createBenchDatabase } from './postgres.ts';

export interface RestSettings {
  connections: number;
  warmupSeconds: number;
  seconds: number;
  rounds: number;
}

export async function startBaseline(objectFile: string): Promise<HttpChild> {
  return startHttpChild(
    'bare Express',
    'bench/baseline-express.ts',
    [],
    childEnv({ PORT: '0', BENCH_OBJECT_FILE: objectFile }),
  );
}

const line = (label: string, r: LoadResult & { perRound: number[] }) => [
  label,
  fmt(r.requestsPerSecond),
  r.perRound.map((n) => fmt(n)).join(' / '),
  fmt(r.total),
  `${fmt(r.p50, 1)} ms`,
  `${fmt(r.p99, 1)} ms`,
];
const HEADER = ['server', 'req/s', 'req/s per round', 'requests', 'p50', 'p99'];

export async function benchRest(
  service: HttpChild,
  baseline: HttpChild,
  fixture: Fixture,
  itemId: string,
  accessToken: string,
  settings: RestSettings,
): Promise<Row[]> {
  const auth = { authorization: `Bearer ${fixture.apiKey}` };
  const common = {
    connections: settings.connections,
    warmupSeconds: settings.warmupSeconds,
    seconds: settings.seconds,
  };
  const rows: Row[] = [];

  console.log(
    `\n== REST GET /api/v1/content/{id}: ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s each in ${settings.rounds} alternating rounds ==`,
  );
  const token = { authorization: `Bearer ${accessToken}` };
  const itemUrl = `${service.url}/api/v1/content/${itemId}`;
  const [getBase, getSvc, getToken] = await compareLoad(
    [
      { label: 'bare GET', options: { ...common, url: `${baseline.url}/api/v1/content/${itemId}`, headers: auth } },
      { label: 'service GET', options: { ...common, url: itemUrl, headers: auth } },
      { label: 'service GET, OAuth token', options: { ...common, url: itemUrl, headers: token } },
    ],
    settings.rounds,
  );
  console.log(
    table(HEADER, [
      line('bare Express', getBase),
      line('service', getSvc),
      line('service, OAuth access token', getToken),
    ]),
  );
  rows.push({
    name: 'REST GET /content/{id}',
    unit: 'req/s',
    project: getSvc.requestsPerSecond,
    limit: getBase.requestsPerSecond,
    ratio: getSvc.requestsPerSecond / getBase.requestsPerSecond,
    target: { op: '>=', value: 0.5 },
  });
  // The same read with an OAuth access token instead of the API key: what the token lookup costs.
  rows.push({
    name: 'REST GET, OAuth token vs API key',
    unit: 'req/s',
    project: getToken.requestsPerSecond,
    limit: getSvc.requestsPerSecond,
    ratio: getToken.requestsPerSecond / getSvc.requestsPerSecond,
  });

  const body = JSON.stringify(CREATE_BODY);
  const post = { ...common, method: 'POST' as const, body, headers: { ...auth, 'content-type': 'application/json' } };
  console.log(
    `\n== REST POST /api/v1/content (${body.length}-byte body): ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s each in ${settings.rounds} alternating rounds ==`,
  );
  const [postBase, postSvc] = await compareLoad(
    [
      { label: 'bare POST', options: { ...post, url: `${baseline.url}/api/v1/content` } },
      { label: 'service POST', options: { ...post, url: `${service.url}/api/v1/content` } },
    ],
    settings.rounds,
  );
  console.log(table(HEADER, [line('bare Express', postBase), line('service', postSvc)]));
  rows.push({
    name: 'REST POST /content',
    unit: 'req/s',
    project: postSvc.requestsPerSecond,
    limit: postBase.requestsPerSecond,
    ratio: postSvc.requestsPerSecond / postBase.requestsPerSecond,
    target: { op: '>=', value: 0.35 },
  });
  return rows;
}

/** One service under load: the child, its workspace and key, and the item the GET reads. */
export interface RestTarget {
  service: HttpChild;
  fixture: Fixture;
  itemId: string;
}

/**
 * A second service child on a fresh database on the PostgreSQL server `serverUrl`, set up as the
 * SQLite one is (workspace by the admin CLI, one item by POST); `close` stops it and drops the database.
 */
export async function startServiceOnPostgres(
  serverUrl: string,
): Promise<{ target: RestTarget; close: () => Promise<void> }> {
  const data = tempDir('service-postgres');
  const database = await createBenchDatabase(serverUrl);
  let service: HttpChild | undefined;
  const close = async () => {
    try {
      await service?.stop();
      await database.drop();
    } finally {
      data.cleanup();
    }
  };
  try {
    const fixture = await createWorkspaceViaCli(data.path, database.url);
    service = await startHttpChild(
      'service on PostgreSQL',
      'src/cli/main.ts',
      ['serve'],
      childEnv({ PORT: '0', DATA_DIR: data.path, DATABASE_URL: database.url, ...RAISED_LIMITS }),
    );
    const running = service;
    const item = await createItem(running.url, fixture).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\nservice log:\n${running.log()}`, { cause: error });
    });
    console.log(`service on PostgreSQL (database ${database.name}) at ${running.url}, item ${item.id}`);
    return { target: { service: running, fixture, itemId: item.id }, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** GET and POST on the PostgreSQL service against the SQLite service, interleaved in the same rounds. */
export async function benchRestOnPostgres(
  sqlite: RestTarget,
  postgres: RestTarget,
  settings: RestSettings,
): Promise<Row[]> {
  const common = {
    connections: settings.connections,
    warmupSeconds: settings.warmupSeconds,
    seconds: settings.seconds,
  };
  const auth = (target: RestTarget) => ({ authorization: `Bearer ${target.fixture.apiKey}` });
  const rounds = `${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s each in ${settings.rounds} alternating rounds`;

  console.log(`\n== REST GET /api/v1/content/{id}, PostgreSQL vs SQLite: ${rounds} ==`);
  const get = (target: RestTarget) => ({
    ...common,
    url: `${target.service.url}/api/v1/content/${target.itemId}`,
    headers: auth(target),
  });
  const [getSqlite, getPostgres] = await compareLoad(
    [
      { label: 'SQLite GET', options: get(sqlite) },
      { label: 'PostgreSQL GET', options: get(postgres) },
    ],
    settings.rounds,
  );
  console.log(table(HEADER, [line('service on SQLite', getSqlite), line('service on PostgreSQL', getPostgres)]));

  const body = JSON.stringify(CREATE_BODY);
  console.log(`\n== REST POST /api/v1/content (${body.length}-byte body), PostgreSQL vs SQLite: ${rounds} ==`);
  const post = (target: RestTarget) => ({
    ...common,
    method: 'POST' as const,
    body,
    url: `${target.service.url}/api/v1/content`,
    headers: { ...auth(target), 'content-type': 'application/json' },
  });
  const [postSqlite, postPostgres] = await compareLoad(
    [
      { label: 'SQLite POST', options: post(sqlite) },
      { label: 'PostgreSQL POST', options: post(postgres) },
    ],
    settings.rounds,
  );
  console.log(table(HEADER, [line('service on SQLite', postSqlite), line('service on PostgreSQL', postPostgres)]));

  return [
    {
      name: 'REST GET /content/{id}, PostgreSQL vs SQLite',
      unit: 'req/s',
      project: getPostgres.requestsPerSecond,
      limit: getSqlite.requestsPerSecond,
      ratio: getPostgres.requestsPerSecond / getSqlite.requestsPerSecond,
      target: { op: '>=', value: 0.5 },
    },
    {
      name: 'REST POST /content, PostgreSQL vs SQLite',
      unit: 'req/s',
      project: postPostgres.requestsPerSecond,
      limit: postSqlite.requestsPerSecond,
      ratio: postPostgres.requestsPerSecond / postSqlite.requestsPerSecond,
      target: { op: '>=', value: 0.35 },
    },
  ];
}
