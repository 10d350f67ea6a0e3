/**
 * The fake Instagram in a process of its own, so the service and the raw loop share no event loop
 * with the platform they call. Prints one JSON line (url, credentials, its first user, a 60-day token
 * for the service's account and one for the raw loop), then 'Listening on <url>'.
 */
import { startFakeInstagram } from '../fakes/instagram.ts';

// The benchmark publishes thousands of posts in minutes: far past the real 24-hour quota, which it
// still reads on every publish.
const ig = await startFakeInstagram({ quotaTotal: 1_000_000_000 });
const user = ig.users[0]!;
const service = ig.issueTokens(user.userId);
const raw = ig.issueTokens(user.userId);
console.log(JSON.stringify({ url: ig.url, clientId: ig.clientId, clientSecret: ig.clientSecret, user, service, raw }));
console.log(`Listening on ${ig.url}`);
// The log, the containers and the posts would grow without bound, and the quota count scans the
// posts: what is done with (published over 30 s ago) is forgotten, so each publish costs the same.
setInterval(() => {
  ig.log.entries.splice(0);
  const old = ig.clock.now() - 30_000;
  for (const [id, container] of ig.containers) {
    if (container.publishedMediaId && container.createdAt < old) ig.containers.delete(id);
  }
  const keep = ig.media.filter((media) => media.timestamp >= old);
  ig.media.splice(0, ig.media.length, ...keep);
}, 1000).unref();
process.on('SIGTERM', () => void ig.close().then(() => process.exit(0)));
