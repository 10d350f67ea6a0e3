import { describe, expect, it } from 'vitest';
import {
  SIGN_IN_ACCOUNT_FREE_FAILURES,
  SIGN_IN_ADDRESS_FAILURES_ALLOWED,
  SIGN_IN_FIRST_DELAY_MS,
  SIGN_IN_FREE_FAILURES,
} from '../../src/core/people/sign-in-limits.ts';
import { Browser } from '../helpers/form-browser.ts';
import { useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { sql } from 'drizzle-orm';

/** A browser on the sign-in page, optionally behind a proxy that names it by X-Forwarded-For. */
async function visitor(bed: RestTestbed, forwardedFor?: string): Promise<Browser> {
  const browser = new Browser(bed);
  if (forwardedFor) browser.headers['x-forwarded-for'] = forwardedFor;
  await browser.open('/app/login');
  return browser;
}

const attempt = (browser: Browser, email: string, password: string) =>
  browser.post('/app/login', { email, password, next: '/app/inbox' });

/** Wrong passwords from `browser` until one answers other than 401; answers how many were checked and the last answer. */
async function guessUntilSlowed(browser: Browser, email: string, most = 20) {
  for (let i = 0; i < most; i++) {
    const answer = await attempt(browser, email, `wrong guess number ${i}`);
    if (answer.status !== 401) return { checked: i, answer };
  }
  throw new Error(`${most} guesses were all checked`);
}

describe('dashboard sign-in limits: growing delays per address and account, device cookies', () => {
  describe('with the defaults (no proxy trusted)', () => {
    const bed = useRestTestbed();

    it('thirty concurrent wrong guesses: the free ones are checked, every other one answers 429 unchecked', async () => {
      const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
      const guesser = await visitor(bed);
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => attempt(guesser, person.email, `concurrent guess ${i}`)),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(SIGN_IN_FREE_FAILURES);
      expect(statuses.filter((status) => status === 429)).toHaveLength(30 - SIGN_IN_FREE_FAILURES);
      for (const answer of answers.filter((a) => a.status === 401)) {
        expect(answer.text).toContain('That email and password do not match an account.');
      }
      // Only the checked ones were recorded as failures.
      const recorded = (await bed.runtime.db.get(sql`select count(*) as n from sign_in_failures`)) as { n: number };
      expect(recorded.n).toBe(SIGN_IN_FREE_FAILURES);
    });

    it('past the free failures each attempt waits twice as long as the last; the right password then gets in', async () => {
      const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
      const guesser = await visitor(bed);
      const { checked, answer } = await guessUntilSlowed(guesser, person.email);
      expect(checked).toBe(SIGN_IN_FREE_FAILURES);
      expect(answer.status).toBe(429);
      expect(answer.headers.get('retry-after')).toBe(String(SIGN_IN_FIRST_DELAY_MS / 1000));
      expect(answer.text).toContain('Too many failed sign-ins. Try again in 30 seconds.');
      // The right password is not looked at while the wait runs.
      expect((await attempt(guesser, person.email, person.password)).status).toBe(429);

      bed.runtime.clock.advance(SIGN_IN_FIRST_DELAY_MS);
      expect((await attempt(guesser, person.email, 'one more wrong guess')).status).toBe(401);
      const longer = await attempt(guesser, person.email, person.password);
      expect(longer.status).toBe(429);
      expect(longer.headers.get('retry-after')).toBe(String((2 * SIGN_IN_FIRST_DELAY_MS) / 1000));
      bed.runtime.clock.advance(2 * SIGN_IN_FIRST_DELAY_MS - 1000);
      expect((await attempt(guesser, person.email, person.password)).status).toBe(429);
      bed.runtime.clock.advance(1000);
      expect((await attempt(guesser, person.email, person.password)).status).toBe(303);
    });

    it('X-Forwarded-For is not believed: a guesser who makes one up each time is slowed all the same', async () => {
      const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
      const guesser = await visitor(bed);
      for (let i = 0; i < SIGN_IN_FREE_FAILURES; i++) {
        guesser.headers['x-forwarded-for'] = `203.0.113.${i + 1}`;
        expect((await attempt(guesser, person.email, `made-up address ${i}`)).status).toBe(401);
      }
      guesser.headers['x-forwarded-for'] = '203.0.113.200';
      expect((await attempt(guesser, person.email, 'yet another guess')).status).toBe(429);
    });

    it('a browser that signed in before still gets in with the right password while the account is guessed at from the same address', async () => {
      const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
      const owner = await visitor(bed);
      const first = await attempt(owner, person.email, person.password);
      expect(first.status).toBe(303);
      const device = first.headers.getSetCookie().find((line) => line.startsWith('np_device='));
      expect(device).toMatch(/HttpOnly/i);
      expect(device).toMatch(/SameSite=Lax/i);
      await owner.post('/app/logout', {});
      await owner.open('/app/login');

      // Everyone here shares one address, as behind a proxy that is not trusted.
      const guesser = await visitor(bed);
      const { checked } = await guessUntilSlowed(guesser, person.email);
      expect(checked).toBe(SIGN_IN_FREE_FAILURES);

      const newcomer = await visitor(bed);
      expect((await attempt(newcomer, person.email, person.password)).status).toBe(429);
      expect((await attempt(owner, person.email, person.password)).status).toBe(303);
      expect((await owner.open('/app/inbox')).text).toContain(person.email);
    });

    it('a device cookie vouches only for the email it was signed in to, and a forged one for none', async () => {
      const guesser = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
      const victim = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
      const browser = await visitor(bed);
      expect((await attempt(browser, guesser.email, guesser.password)).status).toBe(303);
      expect(browser.cookies.get('np_device')).toBeTruthy();
      await browser.post('/app/logout', {});
      await browser.open('/app/login');
      expect((await guessUntilSlowed(browser, victim.email)).checked).toBe(SIGN_IN_FREE_FAILURES);

      const forger = await visitor(bed);
      forger.cookies.set('np_device', 'A'.repeat(40));
      expect((await attempt(forger, victim.email, victim.password)).status).toBe(429);
    });

    it('one address guessing at many accounts is capped across them', async () => {
      const sprayer = await visitor(bed);
      for (let i = 0; i < SIGN_IN_ADDRESS_FAILURES_ALLOWED; i++) {
        expect((await attempt(sprayer, `someone${i}@example.com`, 'Summer2026!')).status, `guess ${i}`).toBe(401);
      }
      const capped = await attempt(sprayer, 'one-more@example.com', 'Summer2026!');
      expect(capped.status).toBe(429);
      expect(Number(capped.headers.get('retry-after'))).toBe(15 * 60);
    });
  });

  describe('behind a trusted proxy (TRUST_PROXY=loopback)', () => {
    const bed = useRestTestbed({ env: { TRUST_PROXY: 'loopback' } });

    it("ten failed sign-ins from one client do not lock the owner out: the owner's address is another", async () => {
      const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
      const attacker = await visitor(bed, '203.0.113.9');
      for (let i = 0; i < 10; i++) await attempt(attacker, person.email, `attacker guess ${i}`);
      expect((await attempt(attacker, person.email, person.password)).status).toBe(429);

      const owner = await visitor(bed, '198.51.100.4');
      expect((await attempt(owner, person.email, person.password)).status).toBe(303);
    });

    it('guessing spread over many addresses slows browsers new to the account, never one that signed in before', async () => {
      const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
      const owner = await visitor(bed, '198.51.100.4');
      expect((await attempt(owner, person.email, person.password)).status).toBe(303);
      await owner.post('/app/logout', {});
      await owner.open('/app/login');

      const addresses = Math.ceil(SIGN_IN_ACCOUNT_FREE_FAILURES / SIGN_IN_FREE_FAILURES);
      for (let a = 0; a < addresses; a++) {
        const attacker = await visitor(bed, `203.0.113.${a + 1}`);
        await Promise.all(
          Array.from({ length: SIGN_IN_FREE_FAILURES }, (_, i) => attempt(attacker, person.email, `spread ${a} ${i}`)),
        );
      }
      const fresh = await visitor(bed, '203.0.113.250');
      expect((await attempt(fresh, person.email, person.password)).status).toBe(429);
      const newcomer = await visitor(bed, '198.51.100.4');
      expect((await attempt(newcomer, person.email, person.password)).status).toBe(429);
      expect((await attempt(owner, person.email, person.password)).status).toBe(303);
    });
  });
});
