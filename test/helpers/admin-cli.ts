import { vi } from 'vitest';
import { runAdmin } from '../../src/cli/admin.ts';
import type { Runtime } from '../../src/core/context.ts';

/** The admin CLI run in process: its exit code and everything it printed (stdout and stderr, in order). */
export async function runAdminCaptured(runtime: Runtime, ...args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void out.push(line));
  try {
    const code = await runAdmin(runtime, args);
    return { code, out: out.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}
