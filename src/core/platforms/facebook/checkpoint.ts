import { z } from 'zod';
import { checkpointCodec } from '../checkpoint.ts';

/** The kinds of post the publisher creates (what `reconcile` looks for). */
export const CREATED_POST_KINDS = z.enum(['feed', 'photo', 'album', 'video']);
export type CreatedPostKind = z.infer<typeof CREATED_POST_KINDS>;

/** What the publisher keeps in the attempt's checkpoint, read back through its schema. */
export const FACEBOOK_CHECKPOINT = checkpointCodec({
  /** Unpublished photo ids of a multi-photo post, by the post's media index. */
  photos: z.array(z.string()),
  /** Saved just before the create call: which kind (what `reconcile` looks for), and when. */
  sending: z.object({ kind: CREATED_POST_KINDS, at: z.string() }),
  /** Saved as soon as the create call answers. */
  created: z.object({ kind: CREATED_POST_KINDS, id: z.string().min(1), postId: z.string().min(1).optional() }),
});
export type FacebookCheckpoint = Partial<{
  photos: string[];
  sending: { kind: CreatedPostKind; at: string };
  created: { kind: CreatedPostKind; id: string; postId?: string };
}>;
