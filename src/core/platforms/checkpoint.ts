/**
 * One way to read a publish's checkpoint: each platform declares the fields it keeps with a zod
 * schema, and reads them back through it. A checkpoint outlives the process that wrote it (and may
 * have been written by an older release), so nothing in it is trusted: each field is checked on its
 * own, and one that fails reads as absent, which makes the publish redo that step instead of acting
 * on a value it cannot vouch for.
 */
import { z } from 'zod';
import type { Checkpoint } from './platform-client.ts';

export interface CheckpointCodec<T extends Record<string, unknown>> {
  /** The fields of `data` that pass their schema; the others are left out. */
  read(data: Readonly<Record<string, unknown>>): Partial<T>;
  /** Saves `patch` (checked against the schema first, so a bug cannot write what `read` would refuse). */
  save(checkpoint: Checkpoint, patch: Partial<T>): Promise<void>;
}

export function checkpointCodec<Shape extends z.ZodRawShape>(
  shape: Shape,
): CheckpointCodec<z.infer<z.ZodObject<Shape>>> {
  type Fields = z.infer<z.ZodObject<Shape>>;
  const partial = z.object(shape).partial();
  return {
    read(data) {
      const fields: Record<string, unknown> = {};
      for (const [name, schema] of Object.entries(shape)) {
        if (data[name] === undefined) continue;
        const parsed = (schema as z.ZodType).safeParse(data[name]);
        if (parsed.success && parsed.data !== undefined) fields[name] = parsed.data;
      }
      return fields as Partial<Fields>;
    },
    async save(checkpoint, patch) {
      partial.parse(patch);
      await checkpoint.save(patch as Record<string, unknown>);
    },
  };
}
