/**
 * REST throughput: the service's GET /api/v1/content/{id} and POST /api/v1/content against a bare
 * Express 5 app answering the same routes with objects of the same shape and size. The GET also runs
 * with an OAuth access token instead of the API key, to show what the token lookup costs. Both servers are
 * child processes; autocannon drives them from this process with the same connection count.
 */
import { CREATE_BODY, type Fixture } from './fixtures.ts';
import { childEnv, compareLoad, fmt, startHttpChild, table, type HttpChild, type LoadResult, type Row } from './lib.ts';

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
