import { expect } from 'vitest';
import type { RestTestbed } from './http.ts';

/*
 * The dashboard as a person without JavaScript uses it, for HTTP-level page tests: a cookie jar,
 * forms posted with the page's CSRF token and a same-origin Origin, redirects read, not followed.
 */

/** A browser without JavaScript: a cookie jar, forms posted with the page's CSRF token and Origin. */
export class Browser {
  cookies = new Map<string, string>();
  /** Headers sent with every request, such as the X-Forwarded-For a proxy in front would add. */
  headers: Record<string, string> = {};
  constructor(
    readonly bed: RestTestbed,
    readonly origin = bed.server.url,
  ) {}
  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  private keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (value === '' || /Expires=Thu, 01 Jan 1970/.test(line)) this.cookies.delete(name!);
      else this.cookies.set(name!, value!);
    }
  }
  async get(path: string) {
    const res = await fetch(this.bed.server.url + path, {
      redirect: 'manual',
      headers: { ...this.headers, cookie: this.cookieHeader() },
    });
    this.keep(res);
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, text: await res.text() };
  }
  async post(
    path: string,
    fields: Record<string, string | string[]>,
    options: { origin?: string | null; csrf?: string | null } = {},
  ) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
    if (options.csrf !== null) body.set('_csrf', options.csrf ?? this.csrf);
    const headers: Record<string, string> = {
      ...this.headers,
      cookie: this.cookieHeader(),
      'content-type': 'application/x-www-form-urlencoded',
    };
    if (options.origin !== null) headers.origin = options.origin ?? this.origin;
    const res = await fetch(this.bed.server.url + path, {
      method: 'POST',
      redirect: 'manual',
      headers,
      body: body.toString(),
    });
    this.keep(res);
    return {
      status: res.status,
      location: res.headers.get('location'),
      headers: res.headers,
      text: await res.text(),
    };
  }
  csrf = '';
  async open(path: string) {
    const page = await this.get(path);
    this.csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? this.csrf;
    return page;
  }
  /** The path and query of a redirect's Location (absolute ones on PUBLIC_BASE_URL come back to this server). */
  static pathOf(location: string | null): string {
    const url = new URL(location ?? '', 'http://relative.invalid');
    return url.pathname + url.search;
  }
  async signIn(email: string, password: string) {
    await this.open('/app/login');
    const res = await this.post('/app/login', { email, password, next: '/app/inbox' });
    expect(res.status, res.text).toBe(303);
    await this.open('/app/inbox');
  }
}
