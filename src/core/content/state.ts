import { ServiceError } from '../errors.ts';
import type { ContentRow } from './serialize.ts';

/** Archived items are final and items mid-publish belong to the publishing run: both are `invalid_state`. */
export function assertChangeable(row: Pick<ContentRow, 'status'>, action: string): void {
  if (row.status === 'archived') {
    throw new ServiceError('invalid_state', `The item is archived; it cannot be ${action}. Archiving is final.`);
  }
  if (row.status === 'publishing') {
    throw new ServiceError(
      'invalid_state',
      `The item is being published right now; it cannot be ${action} until the run ends.`,
    );
  }
}
