import { afterAll, afterEach, beforeEach } from 'vitest';
import { closeOpened, markTestRunning } from '../helpers/postgres.ts';

// The suite's PostgreSQL run: every database a test opened is closed and dropped after it, and one
// opened in a beforeAll after its file, so a file leaves no database or connection behind.
beforeEach(() => markTestRunning(true));
afterEach(async () => {
  markTestRunning(false);
  await closeOpened('test');
});
afterAll(() => closeOpened('file'));
