/**
 * Whether a platform that downloads media itself (Facebook, Instagram, TikTok photos) can reach the
 * service's own files. Apart from the media fetcher (media.ts), which reads the service's storage,
 * so the clients need not import it.
 */
import net from 'node:net';
import { blockedRange, hostOf } from '../net/outbound-url.ts';

/**
 * Why a platform at `platformBaseUrl`, which downloads media from the URLs it is given, could not
 * reach some of `mediaUrls`: they are the service's own files, and `PUBLIC_BASE_URL` names a loopback
 * or private host while the platform's does not. Null when it can (media hosted elsewhere is the
 * user's to make reachable; when both are local, as with the fakes, it can).
 */
export function publicMediaRefusal(
  publicBaseUrl: string,
  platformBaseUrl: string,
  platformName: string,
  mediaUrls: readonly string[],
): string | null {
  if (!mediaUrls.some((url) => url.startsWith(`${publicBaseUrl}/media/`))) return null;
  if (!isLocalHost(publicBaseUrl) || isLocalHost(platformBaseUrl)) return null;
  return (
    `${platformName} fetches media from a public URL, and PUBLIC_BASE_URL (${publicBaseUrl}) is a local address it cannot reach. ` +
    'Set PUBLIC_BASE_URL to the address the service is reachable at from the internet.'
  );
}

function isLocalHost(baseUrl: string): boolean {
  const host = hostOf(new URL(baseUrl));
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return net.isIP(host) !== 0 && blockedRange(host) !== null;
}
