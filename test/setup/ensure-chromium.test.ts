import { describe, expect, it } from 'vitest';
import { chromiumStep, DEBIAN_CHROMIUM, INSTALL_COMMAND, type ChromiumFacts } from './ensure-chromium.ts';

/** A machine as the step sees it: which files exist, who runs it, whether apt-get is there. */
const machine = (overrides: Partial<ChromiumFacts> & { files?: string[] } = {}): ChromiumFacts => {
  const files = new Set(overrides.files ?? []);
  return {
    chromiumPathSetting: undefined,
    exists: (path) => files.has(path),
    isRoot: false,
    hasAptGet: false,
    ...overrides,
  };
};

describe("npm test's chromium step", () => {
  it('goes on when Debian chromium is there, whoever runs it', () => {
    for (const isRoot of [true, false]) {
      expect(chromiumStep(machine({ files: [DEBIAN_CHROMIUM], isRoot, hasAptGet: true }))).toEqual({
        kind: 'ready',
        path: DEBIAN_CHROMIUM,
      });
    }
  });

  it('goes on with the binary CHROMIUM_PATH names, and installs nothing', () => {
    expect(
      chromiumStep(machine({ chromiumPathSetting: '/opt/chromium/chrome', files: ['/opt/chromium/chrome'] })),
    ).toEqual({ kind: 'ready', path: '/opt/chromium/chrome' });
  });

  it("installs Debian's package with apt-get when it is missing and the process is root with apt-get", () => {
    expect(chromiumStep(machine({ isRoot: true, hasAptGet: true }))).toEqual({
      kind: 'install',
      commands: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', 'chromium'],
      ],
    });
  });

  it('stops with the one command to run when not root, or when there is no apt-get', () => {
    for (const facts of [
      machine({ isRoot: false, hasAptGet: true }),
      machine({ isRoot: true, hasAptGet: false }),
      machine(),
    ]) {
      const step = chromiumStep(facts);
      expect(step.kind).toBe('stop');
      expect(step.kind === 'stop' && step.message).toContain(`Run: ${INSTALL_COMMAND}`);
    }
    expect(INSTALL_COMMAND).toBe('sudo apt-get install -y chromium');
  });

  it('stops, installing nothing, when CHROMIUM_PATH names a missing file (the package would not put it there)', () => {
    const step = chromiumStep(machine({ chromiumPathSetting: '/opt/nowhere/chrome', isRoot: true, hasAptGet: true }));
    expect(step.kind).toBe('stop');
    expect(step.kind === 'stop' && step.message).toMatch(
      /^CHROMIUM_PATH is \/opt\/nowhere\/chrome, and no file is there/,
    );
  });
});
