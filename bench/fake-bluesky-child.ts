/**
 * The fake Bluesky in a process of its own, so the service and the raw loop share no event loop with
 * the server they call. Signs its first account in twice (one session for the service's account, one
 * for the raw loop), prints one JSON line (url, the account, both sessions), then 'Listening on <url>'.
 */
import { startFakeBluesky } from '../fakes/bluesky.ts';

const bluesky = await startFakeBluesky();
const account = bluesky.accounts[0]!;
const signIn = async () => {
  const response = await fetch(`${bluesky.url}/xrpc/com.atproto.server.createSession`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: account.handle, password: account.appPassword }),
  });
  if (!response.ok) throw new Error(`createSession answered ${response.status}`);
  return (await response.json()) as { accessJwt: string };
};
const service = await signIn();
const raw = await signIn();
console.log(
  JSON.stringify({
    url: bluesky.url,
    account: { did: account.did, handle: account.handle },
    service: { accessToken: service.accessJwt, expiresIn: 2 * 3600 },
    raw: { accessToken: raw.accessJwt },
  }),
);
console.log(`Listening on ${bluesky.url}`);
// The log and the stored posts would grow without bound, and a create scans the posts for its key:
// forgetting them keeps each create as cheap as the first (every key the benchmark sends is new).
setInterval(() => {
  bluesky.log.entries.splice(0);
  bluesky.posts.splice(0);
}, 1000).unref();
process.on('SIGTERM', () => void bluesky.close().then(() => process.exit(0)));
