import { z } from 'zod';
import { ASSET_TYPES } from '../../../db/schema/index.ts';
import { dateTimeOutput } from '../dates.ts';
import { paginationInput } from '../pagination.ts';
import type { StoredFile } from './receive.ts';

export const MAX_TAGS = 20;
/** X's limit, the smallest of the platforms that take alt text (Bluesky has none, LinkedIn 4,086). */
export const MAX_ALT_TEXT_LENGTH = 1000;

/** A description of an image for people who cannot see it; surrounding whitespace trimmed, never empty. */
export const altText = z
  .string()
  .trim()
  .min(1, 'Alt text needs some text; send null to remove it.')
  .max(MAX_ALT_TEXT_LENGTH, `Alt text is at most ${MAX_ALT_TEXT_LENGTH} characters (X's limit).`);
export const MAX_TAG_LENGTH = 50;

/**
 * Tags arrive as repeated `tags` fields, one comma-separated value, or both: every value is split
 * on commas, trimmed, emptied ones dropped and duplicates removed (first spelling kept); then at
 * most 20, each at most 50 characters.
 */
const tagsInput = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((raw) => [
    ...new Set(
      (raw === undefined ? [] : [raw].flat())
        .flatMap((v) => v.split(','))
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(
    z
      .array(z.string().max(MAX_TAG_LENGTH, `Each tag is at most ${MAX_TAG_LENGTH} characters.`))
      .max(MAX_TAGS, `At most ${MAX_TAGS} tags.`),
  );

/** The uploaded name, for display: the last path segment (browsers may send C:\fakepath\...), control characters removed, 255 at most. */
const filenameInput = z
  .string()
  .optional()
  .transform((raw) => {
    const name = (raw ?? '')
      .split(/[\\/]/)
      .at(-1)!
      .replace(/\p{Cc}/gu, '')
      .trim();
    return name === '' ? undefined : name.slice(0, 255);
  });

/** What the REST door hands over once the file is on disk; not a tool (MCP carries no files). */
export const CreateMediaAssetInput = z.object({
  upload: z.custom<StoredFile>(
    (v) => typeof v === 'object' && v !== null && typeof (v as StoredFile).storageKey === 'string',
    'Attach the file in a multipart field named file.',
  ),
  filename: filenameInput,
  tags: tagsInput,
  /** A multipart field: an empty one is no alt text. */
  alt_text: z
    .string()
    .optional()
    .transform((raw) => (raw === undefined || raw.trim() === '' ? undefined : raw))
    .pipe(altText.optional()),
});

export const UpdateMediaAssetInput = z.object({
  id: z.string().min(1).describe('The media asset id.'),
  alt_text: altText
    .nullable()
    .describe(
      `What the image shows, for people who cannot see it (at most ${MAX_ALT_TEXT_LENGTH} characters); sent as alt text to the platforms that take it. null removes it.`,
    ),
});

export const MediaAssetIdInput = z.object({ id: z.string().min(1).describe('The media asset id.') });

export const ListMediaInput = z.object({
  ...paginationInput,
  asset_type: z.enum(ASSET_TYPES).optional().describe('Only assets of this type: image or video.'),
});

/** The media asset resource (docs/decisions.md, Media). `url` is absolute and public. */
export const MediaAssetResource = z
  .object({
    id: z.uuid(),
    object: z.literal('media_asset'),
    url: z.url().describe('The public file address; platforms fetch it without a key.'),
    asset_type: z.enum(ASSET_TYPES),
    mime_type: z.string(),
    size_bytes: z.int().min(0),
    width: z.int().nullable(),
    height: z.int().nullable(),
    tags: z.array(z.string()),
    alt_text: z
      .string()
      .nullable()
      .describe(
        'What the image shows, sent as alt text wherever it is posted unless an item gives its own; null when not given.',
      ),
    filename: z.string(),
    created_at: dateTimeOutput,
  })
  .meta({ id: 'MediaAsset' });
