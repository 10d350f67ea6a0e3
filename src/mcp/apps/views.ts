import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Resource, ReadResourceResult } from '@modelcontextprotocol/server';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { Config } from '../../core/config.ts';

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): the two views this server ships, which tools
 * open them, and the documents themselves. Each view is one self-contained HTML document, built at
 * start from the project's own TypeScript (./view/) by esbuild and kept in memory.
 */

export const PREVIEW_VIEW_URI = 'ui://content/preview';
export const LIST_VIEW_URI = 'ui://content/list';

export type ViewUri = typeof PREVIEW_VIEW_URI | typeof LIST_VIEW_URI;

/** The tools whose results a host may show in a view, and the view each opens. */
export const TOOL_VIEWS: Readonly<Record<string, ViewUri>> = {
  service_get_content: PREVIEW_VIEW_URI,
  service_create_content: PREVIEW_VIEW_URI,
  service_update_content: PREVIEW_VIEW_URI,
  service_publish_content: PREVIEW_VIEW_URI,
  service_list_content: LIST_VIEW_URI,
};

/**
 * A tool's `_meta` naming its view: `ui.resourceUri`, and the flat `ui/resourceUri` that hosts built
 * before the stable revision read (deprecated, but ext-apps' own registerAppTool still writes both).
 */
export const toolViewMeta = (uri: ViewUri) => ({ ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri });

interface ViewDefinition {
  uri: ViewUri;
  name: string;
  title: string;
  description: string;
  /** The entry module under ./view/. */
  entry: string;
}

const VIEWS: readonly ViewDefinition[] = [
  {
    uri: PREVIEW_VIEW_URI,
    name: 'content-preview',
    title: 'Post preview',
    description: 'One content item as each target platform will show it, its status and history, and Approve/Reject.',
    entry: 'preview.ts',
  },
  {
    uri: LIST_VIEW_URI,
    name: 'content-list',
    title: 'Content list, approval queue and calendar',
    description:
      'A content list as compact cards; the pending_review queue with Approve/Reject; a scheduled range as a month grid.',
    entry: 'list.ts',
  },
];

/** A view document must stay under this size (the bound), checked when it is built. */
export const MAX_VIEW_BYTES = 150 * 1024;

/**
 * The views' TypeScript: beside this file when run from the sources (tsx); from the compiled
 * dist/src/mcp/apps/, the same folder of the sources the package ships (tsc does not compile the
 * views: esbuild bundles them).
 */
const VIEW_SOURCE_DIR = [
  new URL('./view/', import.meta.url),
  new URL('../../../../src/mcp/apps/view/', import.meta.url),
]
  .map((url) => fileURLToPath(url))
  .find((dir) => existsSync(join(dir, 'preview.ts')))!;

/** Keeps an inline script from closing its element early or opening an HTML comment. */
const inlineSafe = (code: string): string => code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

async function buildDocument(view: ViewDefinition): Promise<string> {
  const result = await build({
    entryPoints: [join(VIEW_SOURCE_DIR, view.entry)],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2022'],
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const script = inlineSafe(result.outputFiles[0]!.text);
  const document =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${view.title}</title></head><body><main id="app"><p>Loading…</p></main>` +
    `<script>${script}</script></body></html>`;
  const bytes = Buffer.byteLength(document);
  if (bytes >= MAX_VIEW_BYTES) {
    throw new Error(`The ${view.uri} view is ${bytes} bytes, over the ${MAX_VIEW_BYTES} a view may take.`);
  }
  return document;
}

let documents: Promise<ReadonlyMap<ViewUri, string>> | undefined;

/**
 * The view documents, built once per process (the first call starts the build; a server's start-up
 * calls it so the first resources/read does not wait). A failed build is not cached: the next read
 * tries again and answers the error.
 */
export function viewDocuments(): Promise<ReadonlyMap<ViewUri, string>> {
  documents ??= Promise.all(VIEWS.map(async (view) => [view.uri, await buildDocument(view)] as const)).then(
    (entries) => new Map(entries),
    (error: unknown) => {
      documents = undefined;
      throw error;
    },
  );
  return documents;
}

/**
 * What the host's sandbox may load besides the document itself: thumbnails from the service's own
 * `/media` origin (PUBLIC_BASE_URL), nothing else. The views fetch nothing: every call goes through
 * the host.
 */
function viewResourceMeta(config: Pick<Config, 'publicBaseUrl'>) {
  return { ui: { csp: { resourceDomains: [new URL(config.publicBaseUrl).origin] }, prefersBorder: true } };
}

export function listViewResources(config: Pick<Config, 'publicBaseUrl'>): Resource[] {
  return VIEWS.map((view) => ({
    uri: view.uri,
    name: view.name,
    title: view.title,
    description: view.description,
    mimeType: RESOURCE_MIME_TYPE,
    _meta: viewResourceMeta(config),
  }));
}

/** The view at `uri`, or undefined when no view has that URI. */
export async function readViewResource(
  config: Pick<Config, 'publicBaseUrl'>,
  uri: string,
): Promise<ReadResourceResult | undefined> {
  const view = VIEWS.find((candidate) => candidate.uri === uri);
  if (!view) return undefined;
  const text = (await viewDocuments()).get(view.uri)!;
  return { contents: [{ uri: view.uri, mimeType: RESOURCE_MIME_TYPE, text, _meta: viewResourceMeta(config) }] };
}
