import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestNetwork, type TestNetwork } from '../helpers/test-hosts.ts';

const children: ChildProcess[] = [];

/** Runs `script` with node on `host` and answers its first line of output. */
function firstLine(network: TestNetwork, host: number, script: string): Promise<string> {
  const { command, args } = network.hosts[host]!.on(process.execPath, ['-e', script]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before a line: ${out}`)));
  });
}

/**
 * The hosts the several-hosts tests run their service processes on: each reaches the test's own
 * servers on the gateway address, the test reaches each host at its address, and hosts reach one another.
 */
describe('the test network of several hosts', () => {
  let network: TestNetwork | undefined;
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await network?.close();
    network = undefined;
  });

  it('connects the test process and two hosts both ways', async () => {
    network = await makeTestNetwork(2);
    const gateway = createServer((socket) => socket.end('from the gateway'));
    await new Promise<void>((resolve) => gateway.listen(0, network!.gateway, resolve));
    const gatewayPort = (gateway.address() as AddressInfo).port;
    try {
      // Host 0 serves (and prints its port); host 1 reaches it and the gateway.
      const [host0] = network.hosts;
      const port = await firstLine(
        network,
        0,
        `require('net').createServer(s => s.end('from host 0')).listen(0, '${host0!.address}', function () { console.log(this.address().port); });
         `,
      );
      const fromTest = await new Promise<string>((resolve, reject) => {
        let text = '';
        connect(Number(port), host0!.address)
          .setEncoding('utf8')
          .on('data', (chunk: string) => (text += chunk))
          .on('end', () => resolve(text))
          .on('error', reject);
      });
      expect(fromTest).toBe('from host 0');
      const fromHost1 = await firstLine(
        network,
        1,
        `const net = require('net'); const read = (port, host) => new Promise((ok, fail) => { let t = ''; net.connect(port, host).setEncoding('utf8').on('data', c => t += c).on('end', () => ok(t)).on('error', fail); });
         Promise.all([read(${port}, '${host0!.address}'), read(${gatewayPort}, '${network.gateway}')]).then(([a, b]) => { console.log(a + ' | ' + b); process.exit(0); }, (e) => { console.log('failed: ' + e.message); process.exit(1); });`,
      );
      expect(fromHost1).toBe('from host 0 | from the gateway');
      if (network.namespaces) expect(new Set(network.hosts.map((host) => host.address)).size).toBe(2);
    } finally {
      gateway.close();
    }
  });
});
