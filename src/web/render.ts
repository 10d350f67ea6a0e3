import type { Response } from 'express';
import { Eta } from 'eta';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '../core/context.ts';
import { workspacesOf } from '../core/people/users.ts';
import { sendPage, type PagePart } from './send-page.ts';
import { locals } from './session.ts';

/** The dashboard's folder: its views and assets are beside this file. */
export const webDir = dirname(fileURLToPath(import.meta.url));
export const eta = new Eta({ views: join(webDir, 'views'), autoEscape: true, cache: true, autoTrim: false });
/*
 * The partial a list includes once per row, by name: an include by path resolves and checks the path
 * on every call (a tenth of a list page's rendering), an include by name is one lookup.
 */
eta.loadTemplate('@item-actions', readFileSync(join(webDir, 'views', 'item-actions.eta'), 'utf8'));

/**
 * Renders `view` inside the layout and sends it. A long list passes its rows as `parts`, each
 * rendered on its own, and its view puts PARTS_SLOT where they go: the page is then encoded a
 * part at a time, never joined into one long string first (see sendPage).
 */
export const layoutPage =
  (runtime: Runtime) =>
  async (
    res: Response,
    title: string,
    view: string,
    data: Record<string, unknown>,
    nav?: string,
    parts?: readonly PagePart[],
  ): Promise<void> => {
    const { signedIn, csrf } = locals(res);
    const body = eta.render(view, { ...data, csrf });
    const me = signedIn && {
      email: signedIn.user.email,
      role: signedIn.principal.role,
      workspace: signedIn.workspace.name,
      workspaceId: signedIn.workspace.id,
      // The header's switcher: shown to a person of more than one workspace.
      workspaces: await workspacesOf(runtime.db, signedIn.user.id),
    };
    const html = eta.render('layout', { title, body, me, csrf, nav, notice: data.notice, error: data.error });
    sendPage(res, html, parts);
  };
