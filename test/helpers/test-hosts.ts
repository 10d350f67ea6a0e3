import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Hosts for the tests of several service hosts: each a network namespace of its own with an address
 * on a bridge the test makes, and the test process (its load balancer, fakes and database relay) on
 * the bridge's own address, which every host reaches. Where namespaces are refused (not root, no
 * `ip`), every host is this machine's loopback and the hosts are told apart by port alone.
 */
export interface TestNetwork {
  /** Whether each host is a namespace of its own (false: all share loopback). */
  namespaces: boolean;
  /** The address the test's own servers listen on, reachable from every host. */
  gateway: string;
  hosts: TestHost[];
  /** Removes the namespaces, their links and the bridge. */
  close(): Promise<void>;
}

export interface TestHost {
  name: string;
  /** The host's own address: its processes listen there, and are reached there. */
  address: string;
  /** `command` with `args`, run on this host (inside its namespace). */
  on(command: string, args: readonly string[]): { command: string; args: string[] };
}

export async function makeTestNetwork(count: number): Promise<TestNetwork> {
  const tag = randomBytes(3).toString('hex');
  // A /24 of its own, so test files running at once do not meet.
  const subnet = `10.${200 + (parseInt(tag.slice(0, 2), 16) % 50)}.${parseInt(tag.slice(2, 4), 16)}`;
  const bridge = `sbr${tag}`;
  const made: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const undo of made.reverse()) await undo().catch(() => {});
  };
  try {
    await run('ip', ['link', 'add', bridge, 'type', 'bridge']);
  } catch {
    return loopbackNetwork(count);
  }
  made.push(() => run('ip', ['link', 'del', bridge]));
  try {
    await run('ip', ['addr', 'add', `${subnet}.1/24`, 'dev', bridge]);
    await run('ip', ['link', 'set', bridge, 'up']);
    const hosts: TestHost[] = [];
    for (let i = 0; i < count; i++) {
      const name = `svc${tag}h${i}`;
      const link = `svh${tag}${i}`;
      const address = `${subnet}.${11 + i}`;
      await run('ip', ['netns', 'add', name]);
      made.push(() => run('ip', ['netns', 'del', name]));
      await run('ip', ['link', 'add', link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name]);
      made.push(() => run('ip', ['link', 'del', link]));
      await run('ip', ['link', 'set', link, 'master', bridge, 'up']);
      const inside = (...args: string[]) => run('ip', ['netns', 'exec', name, 'ip', ...args]);
      await inside('addr', 'add', `${address}/24`, 'dev', 'eth0');
      await inside('link', 'set', 'eth0', 'up');
      await inside('link', 'set', 'lo', 'up');
      hosts.push({
        name,
        address,
        on: (command, args) => ({ command: 'ip', args: ['netns', 'exec', name, command, ...args] }),
      });
    }
    return { namespaces: true, gateway: `${subnet}.1`, hosts, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function loopbackNetwork(count: number): TestNetwork {
  return {
    namespaces: false,
    gateway: '127.0.0.1',
    hosts: Array.from({ length: count }, (_, i) => ({
      name: `loopback${i}`,
      address: '127.0.0.1',
      on: (command, args) => ({ command, args: [...args] }),
    })),
    close: async () => {},
  };
}
