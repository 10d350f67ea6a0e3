import { validateHostHeader } from '@modelcontextprotocol/server';
import type { RequestHandler } from 'express';
import type { Config } from '../core/config.ts';
import { ServiceError } from '../core/errors.ts';
import { sendError } from './errors.ts';
import { messagePage, PAGE_SECURITY_POLICY } from './message-page.ts';

/** The probes a load balancer sends, naming the instance's own address: answered whatever the Host. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/** The hostnames of this machine's loopback interface, as URL.hostname spells them. */
export const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The Host names the service answers to, or null for any. A service whose base is a loopback URL
 * runs on this machine for this machine: a request naming another host reached it through a name
 * rebound to 127.0.0.1 (DNS rebinding), from a page that may then read its answers as its own. Any
 * other base answers every name unless ALLOWED_HOSTS lists them: behind a proxy, the proxy picks
 * the names it forwards.
 */
export function allowedHostnames(config: Pick<Config, 'publicBaseUrl' | 'allowedHosts'>): string[] | null {
  const base = new URL(config.publicBaseUrl).hostname;
  const loopback = LOOPBACK_HOSTNAMES.includes(base);
  if (!loopback && config.allowedHosts.length === 0) return null;
  return [...new Set([base, ...(loopback ? LOOPBACK_HOSTNAMES : []), ...config.allowedHosts])];
}

/** The dashboard's addresses, which a browser shows: they get a page, everything else the API's envelope. */
const DASHBOARD_PATH = /^\/app(\/|$)/i;

/**
 * Refuses, before any route runs, a request whose Host is not one the service answers to (the check
 * the MCP SDK makes, over the whole app): 403 `host_not_allowed`, as a page on the dashboard. The
 * health probe answers any Host: a load balancer's probe names the instance's own address, and its
 * answer tells a rebinding page nothing.
 */
export function hostCheck(config: Config): RequestHandler {
  const allowed = allowedHostnames(config);
  if (allowed === null) return (_req, _res, next) => next();
  return (req, res, next) => {
    if (PROBE_PATHS.has(req.path)) return next();
    const checked = validateHostHeader(req.headers.host, allowed);
    if (checked.ok) return next();
    const message = `This service does not answer to the host ${req.headers.host ?? '(none)'}; call it at ${config.publicBaseUrl}.`;
    if (DASHBOARD_PATH.test(req.path)) {
      res.set({ 'Content-Security-Policy': PAGE_SECURITY_POLICY, 'Cache-Control': 'no-store' });
      return void res.status(403).type('html').send(messagePage('Wrong address', message));
    }
    sendError(res, new ServiceError('host_not_allowed', message), config.docsUrl);
  };
}
