import { describe, expect, it } from 'vitest';
import { makeContent } from '../helpers/factories.ts';
import { Browser } from '../helpers/form-browser.ts';
import { useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';

/** The calendar's week view (view=week), built on the week grid of calendar-grid.ts. */
describe('dashboard calendar, week view', () => {
  const bed = useRestTestbed();

  const signedIn = async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const browser = new Browser(bed);
    await browser.signIn(person.email, person.password);
    return browser;
  };

  it('shows the seven days from Monday of the week asked, across the year’s end, and links the weeks around it', async () => {
    for (const [caption, at] of [
      ['Last post of the year', '2026-12-31T14:30:00Z'],
      ['First Sunday post', '2027-01-03T09:00:00Z'],
      ['The Monday after', '2027-01-04T09:00:00Z'],
    ]) {
      await makeContent(bed.runtime, bed.ws.workspace, { status: 'scheduled', scheduled_for: at, caption });
    }
    const browser = await signedIn();
    const page = await browser.open('/app/calendar?view=week&week=2026-12-31');
    expect(page.status).toBe(200);
    const days = [...page.text.matchAll(/data-day="([\d-]+)"/g)].map((m) => m[1]);
    expect(days).toEqual([
      '2026-12-28',
      '2026-12-29',
      '2026-12-30',
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
      '2027-01-03',
    ]);
    expect(page.text).toContain('<caption>Week of 28 December 2026 (UTC)</caption>');
    expect(page.text).toMatch(/data-day="2027-01-01"><span class="day">1 Jan<\/span>/);
    expect(page.text).toContain('Last post of the year');
    expect(page.text).toContain('First Sunday post');
    expect(page.text).not.toContain('The Monday after');
    expect(page.text).toContain('<a href="?week=2026-12-21&amp;view=week">Previous week</a>');
    expect(page.text).toContain('<a href="?week=2027-01-04&amp;view=week">Next week</a>');
    expect(page.text).toContain('<a href="?month=2026-12&amp;view=month">Month grid</a>');
    // A move from the week view comes back to it.
    expect(page.text).toContain('name="back" value="/app/calendar?week=2026-12-28&amp;view=week"');
  });

  it('without a day, or with one the calendar lacks, shows the week of today; the month grid links to it', async () => {
    const browser = await signedIn();
    // The test clock starts on Tuesday 10 March 2026.
    for (const path of ['/app/calendar?view=week', '/app/calendar?view=week&week=2026-02-31']) {
      const page = await browser.open(path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).toContain('<caption>Week of 9 March 2026 (UTC)</caption>');
    }
    // A year the calendar does not show (none before 2000) is no day of the calendar either: not 1950.
    const ancient = await browser.open('/app/calendar?view=week&week=0050-01-05');
    expect(ancient.text).toContain('<caption>Week of 9 March 2026 (UTC)</caption>');
    const ancientMonth = await browser.open('/app/calendar?month=0050-01');
    expect(ancientMonth.text).toContain('March 2026');
    expect(ancientMonth.text).not.toContain('1950');
    const month = await browser.open('/app/calendar?month=2026-03');
    expect(month.text).toContain('<a href="?week=2026-03-10&amp;view=week">Week view</a>');
    expect((await browser.open('/app/calendar?month=2026-05')).text).toContain(
      '<a href="?week=2026-05-01&amp;view=week">Week view</a>',
    );
  });
});
