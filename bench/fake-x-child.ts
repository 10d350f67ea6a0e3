/**
 * The fake X in a process of its own, so the service and the raw loop share no event loop with the
 * platform they call. Prints one JSON line (url, credentials, tokens for its first user), then
 * 'Listening on <url>'.
 */
import { startFakeX } from '../fakes/x.ts';

const x = await startFakeX({ accessTokenTtlSecs: 24 * 3600 });
const user = x.users[0]!;
// One token per caller: the service's account and the raw loop never share a token's state.
const service = x.issueTokens(user.id);
const raw = x.issueTokens(user.id);
console.log(JSON.stringify({ url: x.url, clientId: x.clientId, clientSecret: x.clientSecret, user, service, raw }));
console.log(`Listening on ${x.url}`);
// The log and the stored posts would grow without bound, and the duplicate check scans the posts:
// every text the benchmark sends is unique, so forgetting them keeps each create as cheap as the first.
setInterval(() => {
  x.log.entries.splice(0);
  x.posts.splice(0);
}, 1000).unref();
process.on('SIGTERM', () => void x.close().then(() => process.exit(0)));
