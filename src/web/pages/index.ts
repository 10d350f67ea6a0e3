import { Router } from 'express';
import { join } from 'node:path';
import type { Runtime } from '../../core/context.ts';
import { webDir } from '../render.ts';
import { accountPages } from './accounts.ts';
import { calendarPage } from './calendar.ts';
import { campaignPages } from './campaigns.ts';
import { contentListPages } from './content-list.ts';
import { homePage } from './home.ts';
import { itemPage } from './item.ts';
import { keyPages } from './keys.ts';
import type { PageKit } from './kit.ts';
import { mediaPages } from './media.ts';
import { memberPages } from './members.ts';
import { reviewActions } from './review-actions.ts';
import { securityPages } from './security.ts';
import { settingsPage } from './settings.ts';
import { signInPages } from './sign-in.ts';
import { webhookPages } from './webhooks.ts';

const assets = join(webDir, 'assets');

/**
 * Every page of the dashboard, each module on the same kit: signing in, the inbox and content lists,
 * the review actions, the item page, the calendar and the settings; then home, campaigns, media, the
 * admin's accounts, webhooks, keys and members, and each person's security page.
 */
export function dashboardPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  for (const pages of [signInPages, contentListPages, reviewActions, itemPage, calendarPage, settingsPage]) {
    router.use(pages(runtime, kit));
  }
  router.get('/assets/admin.js', (_req, res) => res.type('js').sendFile(join(assets, 'admin.js')));
  router.get('/assets/admin.css', (_req, res) => res.type('css').sendFile(join(assets, 'admin.css')));
  for (const pages of [
    homePage,
    campaignPages,
    mediaPages,
    accountPages,
    webhookPages,
    keyPages,
    memberPages,
    securityPages,
  ]) {
    router.use(pages(runtime, kit));
  }
  return router;
}
