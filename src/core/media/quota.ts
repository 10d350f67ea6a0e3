import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { mediaAssets } from '../../../db/schema/index.ts';
import type { Workspace } from '../accounts/workspace.ts';
import { ServiceError } from '../errors.ts';

/**
 * The media storage quota: the sum of the sizes of a workspace's stored files may not pass its
 * plan's `storageBytes`. An upload is measured against the room left as it streams (refused as soon
 * as it passes it), and again when its row is written, where concurrent uploads are in order.
 */

/** Bytes of files the workspace's media library holds now. */
export async function storageUsedBytes(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .select({ used: sql<number>`coalesce(sum(${mediaAssets.sizeBytes}), 0)` })
    .from(mediaAssets)
    .where(eq(mediaAssets.workspaceId, workspaceId))
    .get();
  return Number(row?.used ?? 0);
}

/** Refuses, with quota_exceeded, a file of `sizeBytes` the library has no room for. */
export async function assertStorageRoom(db: Db, workspace: Workspace, sizeBytes: number): Promise<void> {
  const used = await storageUsedBytes(db, workspace.id);
  if (used + sizeBytes > workspace.storageLimitBytes) {
    throw storageFull(workspace, used, `this file's ${formatBytes(sizeBytes)}`);
  }
}

/**
 * The quota_exceeded refusal; `needed` says what did not fit ("this file's 3.2 MiB", or while
 * streaming "a file over the 1.1 MiB left").
 */
export function storageFull(workspace: Workspace, used: number, needed: string): ServiceError {
  return new ServiceError(
    'quota_exceeded',
    `The media library has no room for ${needed}: ${formatBytes(used)} of the ${workspace.plan} plan's ` +
      `${formatBytes(workspace.storageLimitBytes)} are used. Delete media no longer needed ` +
      '(DELETE /api/v1/media_assets/{id}, or Media in the dashboard), or move to a larger plan.',
  );
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A size for people: "512 bytes", "3.2 MiB", "25 GiB" (binary units, as the plans are set). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const rounded = value >= 100 || Number.isInteger(value) ? Math.round(value) : Math.round(value * 10) / 10;
  return `${rounded} ${UNITS[unit]}`;
}

/** What bounds one upload as it streams: the largest file accepted, and the room the quota leaves. */
export interface UploadLimits {
  /** MEDIA_MAX_BYTES: past it the upload is 413. */
  maxBytes: number;
  /** The room left in the workspace's library when the upload began: past it the upload is quota_exceeded. */
  roomBytes: number;
  /** The refusal for a file that passes `roomBytes`. */
  storageFull: () => ServiceError;
}

/** The limits of an upload into `workspace`'s library starting now. */
export async function uploadLimitsFor(db: Db, workspace: Workspace, maxBytes: number): Promise<UploadLimits> {
  const used = await storageUsedBytes(db, workspace.id);
  const roomBytes = Math.max(0, workspace.storageLimitBytes - used);
  return {
    maxBytes,
    roomBytes,
    storageFull: () => storageFull(workspace, used, `a file over the ${formatBytes(roomBytes)} left`),
  };
}
