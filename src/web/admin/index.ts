import { Router } from 'express';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '../../core/context.ts';
import { accountPages } from './accounts.ts';
import { campaignPages } from './campaigns.ts';
import { homePage } from './home.ts';
import { keyPages } from './keys.ts';
import type { PageKit } from './kit.ts';
import { mediaPages } from './media.ts';
import { memberPages } from './members.ts';
import { securityPages } from './security.ts';
import { webhookPages } from './webhooks.ts';

const assets = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');

/** The dashboard's workspace pages: home, campaigns, media, the admin's accounts, webhooks, keys and members, and each person's security page. */
export function adminPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();
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
