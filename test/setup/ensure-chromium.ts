/**
 * `npm test`'s first step: the browser tests drive Debian's chromium (test/helpers/browser.ts), so a
 * machine without it either gets it here, as .ci/run does (root, with apt-get: Debian's package,
 * never a download), or the run stops at once with the one command to type, instead of failing every
 * browser test one by one. `npx vitest run <file>` skips this step; launchBrowser still names the
 * command in a test that needs the browser.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where Debian's package puts the binary, and what test/helpers/browser.ts launches unless CHROMIUM_PATH says otherwise. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';
export const INSTALL_COMMAND = 'sudo apt-get install -y chromium';

export interface ChromiumFacts {
  /** CHROMIUM_PATH, when set. */
  chromiumPathSetting: string | undefined;
  exists(path: string): boolean;
  isRoot: boolean;
  hasAptGet: boolean;
}

export type ChromiumStep =
  | { kind: 'ready'; path: string }
  | { kind: 'install'; commands: ReadonlyArray<readonly string[]> }
  | { kind: 'stop'; message: string };

/** What to do before the suite, from the machine's facts alone (no side effect: the unit test injects them). */
export function chromiumStep(facts: ChromiumFacts): ChromiumStep {
  const path = facts.chromiumPathSetting || DEBIAN_CHROMIUM;
  if (facts.exists(path)) return { kind: 'ready', path };
  if (path !== DEBIAN_CHROMIUM) {
    // Installing Debian's package would not put a binary there: the setting is the thing to fix.
    return {
      kind: 'stop',
      message: `CHROMIUM_PATH is ${path}, and no file is there. Point it at a chromium binary, or unset it and run: ${INSTALL_COMMAND}`,
    };
  }
  if (facts.isRoot && facts.hasAptGet) {
    return {
      kind: 'install',
      commands: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', 'chromium'],
      ],
    };
  }
  return {
    kind: 'stop',
    message: `The browser tests need chromium at ${DEBIAN_CHROMIUM}, and it is not installed. Run: ${INSTALL_COMMAND}\nthen npm test again.`,
  };
}

/** Whether an executable of this name is on PATH (what `command -v` answers). */
function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function main(): number {
  const facts: ChromiumFacts = {
    chromiumPathSetting: process.env.CHROMIUM_PATH,
    exists: existsSync,
    isRoot: process.getuid?.() === 0,
    hasAptGet: onPath('apt-get'),
  };
  const step = chromiumStep(facts);
  if (step.kind === 'ready') return 0;
  if (step.kind === 'stop') {
    console.error(step.message);
    return 1;
  }
  console.error(
    `chromium is missing: installing Debian's package (${step.commands.map((c) => c.join(' ')).join('; ')}).`,
  );
  try {
    for (const [command, ...args] of step.commands) execFileSync(command!, args, { stdio: 'inherit' });
  } catch {
    console.error(`Installing chromium failed. Run: ${INSTALL_COMMAND}\nthen npm test again.`);
    return 1;
  }
  const after = chromiumStep({ ...facts, isRoot: false });
  if (after.kind !== 'ready') {
    console.error(`apt-get finished, but ${DEBIAN_CHROMIUM} is still missing. Run: ${INSTALL_COMMAND}`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main();
