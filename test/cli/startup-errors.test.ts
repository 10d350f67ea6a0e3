import { randomBytes } from 'node:crypto';
import { createServer, connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/postgres.ts';
import { runEntry, tempDataDir } from '../helpers/subprocess.ts';

const SLOW = 60_000;
/** Every way the service starts: each opens the database first, and must stop at once when it cannot. */
const COMMANDS = ['serve', 'mcp', 'worker', 'admin list-workspaces'];

/** A loopback port nothing listens on: bound by the system, then released. */
async function closedPort(): Promise<number> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as { port: number };
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  return port;
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A DATABASE_URL on which PostgreSQL cannot be opened stops every command before it serves anything:
 * one plain line on stderr naming the server and the reason (db/postgres.ts PostgresConnectError),
 * never the password, no stack trace, a non-zero exit, and no port left listening.
 */
describe('start-up with a PostgreSQL DATABASE_URL that cannot be opened (subprocess)', () => {
  const data = tempDataDir('startup-errors');
  afterAll(() => data.remove());
  const password = `secret-${randomBytes(8).toString('hex')}`;

  /** Runs `command` on `url` with PORT set to a free port; checks what every failure has in common. */
  async function refusedStart(command: string, url: string): Promise<string> {
    const port = await closedPort();
    const result = await runEntry(command.split(' '), {
      DATA_DIR: data.dir,
      DATABASE_URL: url,
      HOST: '127.0.0.1',
      PORT: String(port),
    });
    const shown = result.stdout + result.stderr;
    expect(result.code, shown).toBe(1);
    expect(shown).not.toContain(password);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).not.toMatch(/Listening on|API key/);
    expect(await listening(port)).toBe(false);
    return result.stderr.trim();
  }

  it.each(COMMANDS)(
    '%s: a refused connection names the server and says it was refused',
    async (command) => {
      const port = await closedPort();
      const stderr = await refusedStart(command, `postgres://someone:${password}@127.0.0.1:${port}/service`);
      expect(stderr).toBe(
        `Cannot connect to PostgreSQL at 127.0.0.1:${port}/service as someone: connection refused (is PostgreSQL running and listening there?)`,
      );
    },
    SLOW,
  );

  it.each(COMMANDS)(
    '%s: a malformed URL is called malformed and is not repeated',
    async (command) => {
      const stderr = await refusedStart(command, `postgres://someone:${password}@[127.0.0.1/service`);
      expect(stderr).toBe('The PostgreSQL URL is malformed: expected postgres://user:password@host:port/database');
    },
    SLOW,
  );

  // A wrong password needs a server that asks for one: the test cluster's pg_hba.conf asks the role
  // password_probe for a scram password on 127.0.0.1 (test/postgres/connect-errors.test.ts). Any
  // password is wrong here, whether or not that role exists at the moment: PostgreSQL answers alike.
  const server = process.env.TEST_DATABASE_URL;
  describe.skipIf(server === undefined)('against the test PostgreSQL server', () => {
    it.each(COMMANDS)(
      '%s: a wrong password names the server and the reason, never the password',
      async (command) => {
        // On 127.0.0.1, where the rule is (a name like localhost could reach ::1, trusted).
        const onLoopback = new URL(server!);
        onLoopback.hostname = '127.0.0.1';
        const url = databaseUrl(onLoopback.toString(), 'postgres', { user: 'password_probe', password });
        const stderr = await refusedStart(command, url);
        expect(stderr).toBe(
          `Cannot connect to PostgreSQL at 127.0.0.1:${onLoopback.port || '5432'}/postgres as password_probe: password authentication failed`,
        );
      },
      SLOW,
    );
  });
});
