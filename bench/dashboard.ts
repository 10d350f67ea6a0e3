/**
 * The dashboard's approval inbox: `GET /app/inbox?limit=50` signed in as an approver (50 pending
 * items, each with its caption and one preview card per target platform, rendered on the server)
 * against `GET /api/v1/content?status=pending_review&limit=50` with the workspace's key, on the same
 * server process, with 10,000 pending items in the workspace, the same connections and duration, in
 * interleaved rounds. The ratio is the median of the rounds' page/API ratios: what the page costs
 * over the list it is built on.
 */
import {
  childEnv,
  compareLoad,
  cpuPerRequest,
  fmt,
  median,
  RAISED_LIMITS,
  runChild,
  startHttpChild,
  table,
  tempDir,
  type LoadOptions,
  type Row,
} from './lib.ts';
import { CREATE_BODY, createWorkspaceViaCli, type Fixture } from './fixtures.ts';

export interface DashboardSettings {
  items: number;
  connections: number;
  warmupSeconds: number;
  seconds: number;
  rounds: number;
}

const PAGE_SIZE = 50;
const PASSWORD = 'a benchmark password';
/** Platforms the items target, each with a connected account so the previews judge readiness as they would live. */
const PLATFORMS = ['instagram', 'linkedin', 'twitter'] as const;

const admin = (fixture: Fixture, args: string[]) =>
  runChild('src/cli/main.ts', ['admin', ...args, '--json'], childEnv({ DATA_DIR: fixture.dataDir }));

/** `count` pending items through the API, `parallel` at a time, each a little different. */
async function seedPending(baseUrl: string, fixture: Fixture, count: number, parallel = 16): Promise<void> {
  const headers = { authorization: `Bearer ${fixture.apiKey}`, 'content-type': 'application/json' };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const res = await fetch(`${baseUrl}/api/v1/content`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          ...CREATE_BODY,
          caption: `${CREATE_BODY.caption} (${n + 1})`,
          target_platforms: PLATFORMS,
          status: 'pending_review',
        }),
      });
      if (res.status !== 201) throw new Error(`POST /api/v1/content answered ${res.status}: ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Sets the approver's password on their invite link, as a person does; answers the session cookie. */
async function signInThroughInvite(baseUrl: string, inviteUrl: string): Promise<string> {
  const invite = new URL(inviteUrl);
  const form = await fetch(`${baseUrl}${invite.pathname}${invite.search}`);
  const pre = /np_pre=([^;]+)/.exec(form.headers.getSetCookie().join('\n'))?.[1];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!pre || !csrf) throw new Error(`the invite page gave no form cookie or CSRF token (${form.status})`);
  const done = await fetch(`${baseUrl}/app/invite`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `np_pre=${pre}`, origin: baseUrl },
    body: new URLSearchParams({ _csrf: csrf, token: invite.searchParams.get('token')!, password: PASSWORD }),
  });
  const session = /np_session=([^;]+)/.exec(done.headers.getSetCookie().join('\n'))?.[1];
  if (done.status !== 303 || !session) throw new Error(`setting the password answered ${done.status}, no session`);
  return `np_session=${session}`;
}

/** One inbox page checked: 50 items, each with a card per platform, not a sign-in page or an error. */
async function checkInbox(url: string, cookie: string): Promise<void> {
  const res = await fetch(url, { headers: { cookie }, redirect: 'manual' });
  const page = await res.text();
  const items = page.match(/<li class="item"/g)?.length ?? 0;
  const cards = page.match(/<article\s+class="card /g)?.length ?? 0;
  if (res.status !== 200 || items !== PAGE_SIZE || cards !== PAGE_SIZE * PLATFORMS.length)
    throw new Error(`the inbox answered ${res.status} with ${items} items and ${cards} preview cards`);
}

export async function benchDashboard(settings: DashboardSettings): Promise<Row[]> {
  const rounds = Math.max(3, settings.rounds);
  const data = tempDir('dashboard');
  const fixture = await createWorkspaceViaCli(data.path);
  for (const platform of PLATFORMS)
    await admin(fixture, [
      'connect-account',
      '--workspace',
      fixture.workspaceId,
      '--platform',
      platform,
      '--username',
      `bench_${platform}`,
    ]);
  const invited = JSON.parse(
    (
      await admin(fixture, [
        'create-user',
        '--workspace',
        fixture.workspaceId,
        '--email',
        'approver@example.com',
        '--role',
        'approver',
      ])
    )
      .trim()
      .split('\n')
      .at(-1)!,
  ) as { invite_url: string };
  const service = await startHttpChild(
    'service',
    'src/cli/main.ts',
    ['serve'],
    childEnv({ PORT: '0', DATA_DIR: data.path, ...RAISED_LIMITS }),
  );
  try {
    const seeding = Date.now();
    await seedPending(service.url, fixture, settings.items);
    console.log(`\nseeded ${settings.items} pending items in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
    const cookie = await signInThroughInvite(service.url, invited.invite_url);
    const inboxUrl = `${service.url}/app/inbox?limit=${PAGE_SIZE}`;
    await checkInbox(inboxUrl, cookie);
    const common = {
      connections: settings.connections,
      warmupSeconds: settings.warmupSeconds,
      seconds: settings.seconds,
    };
    console.log(
      `\n== Dashboard inbox (${PAGE_SIZE} items x ${PLATFORMS.length} previews, signed in) vs REST GET /api/v1/content?status=pending_review&limit=${PAGE_SIZE}, ` +
        `${settings.items} pending, same server: ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s each in ${rounds} alternating rounds ==`,
    );
    const sides: Array<{ label: string; options: LoadOptions }> = [
      {
        label: 'REST list',
        options: {
          ...common,
          url: `${service.url}/api/v1/content?status=pending_review&limit=${PAGE_SIZE}`,
          headers: { authorization: `Bearer ${fixture.apiKey}` },
        },
      },
      { label: 'inbox page', options: { ...common, url: inboxUrl, headers: { cookie } } },
    ];
    const [rest, inbox] = await compareLoad(sides, rounds);
    // Still the inbox after the load: no round was measured on sign-in redirects.
    await checkInbox(inboxUrl, cookie);
    const ratios = inbox.perRound.map((perSecond, round) => perSecond / rest.perRound[round]);
    const ratio = median(ratios);
    console.log(
      table(
        ['door', 'req/s', 'req/s per round', 'requests', 'p50', 'p99'],
        [rest, inbox].map((r, i) => [
          i === 0 ? 'REST list' : 'inbox page',
          fmt(r.requestsPerSecond),
          r.perRound.map((n) => fmt(n)).join(' / '),
          fmt(r.total),
          `${fmt(r.p50, 1)} ms`,
          `${fmt(r.p99, 1)} ms`,
        ]),
      ),
    );
    console.log(`inbox/REST per round: ${ratios.map((r) => fmt(r, 2)).join(' / ')}; median ${fmt(ratio, 2)}`);
    const cpu = await cpuPerRequest(service.child.pid, sides, rounds);
    return [
      {
        name: `inbox page (${PAGE_SIZE} with previews) vs REST list`,
        unit: 'req/s',
        project: median(inbox.perRound),
        limit: median(rest.perRound),
        ratio,
        target: { op: '>=', value: 0.5 },
        note: `median of ${rounds} rounds, ${settings.items} pending`,
      },
      ...(cpu
        ? [
            {
              name: 'inbox page vs REST list, server CPU per request',
              unit: 'µs',
              project: cpu[1]!,
              limit: cpu[0]!,
              ratio: cpu[1]! / cpu[0]!,
              note: `median of ${rounds} rounds; REST/page ${fmt(cpu[0]! / cpu[1]!, 2)}`,
            },
          ]
        : []),
    ];
  } finally {
    await service.stop();
    data.cleanup();
  }
}
