import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NODE, REPO_ROOT, ensureBuilt } from '../acceptance/build.js';
import { nodeSupported, nodeVersionProblem } from '../../src/node-version.js';

describe('the Node version every entry point requires', () => {
  it('is 22.13+ on the 22 line, 23.4+ on the 23 line, any 24 or newer', () => {
    const supported = ['22.13.0', '22.20.1', '23.4.0', '24.0.0', '24.21.0', '26.1.0'];
    const unsupported = ['20.20.2', '21.7.3', '22.12.0', '22.5.1', '23.3.0', '18.0.0', 'garbage'];
    expect(supported.filter(nodeSupported)).toEqual(supported);
    expect(unsupported.filter(nodeSupported)).toEqual([]);
  });

  it('is explained in one line naming the required and the found version', () => {
    expect(nodeVersionProblem('24.0.0')).toBeNull();
    expect(nodeVersionProblem('20.20.2')).toBe(
      'g2rain-agent-runtime requires Node.js 22.13 or newer (found 20.20.2); please upgrade Node.js.',
    );
  });
});

describe('loading the library', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('needs node:sqlite only once a SQLite store is opened (the memory store and the core load without it)', () => {
    const script = `
      const m = await import(${JSON.stringify(join(REPO_ROOT, 'dist/src/index.js'))});
      await import(${JSON.stringify(join(REPO_ROOT, 'dist/src/testing/index.js'))});
      const sqlite = () => process.moduleLoadList.some((name) => name === 'NativeModule sqlite');
      const runtime = m.createRuntime({ store: 'memory' });
      await runtime.list();
      await runtime.close();
      const before = sqlite();
      await (await m.openStore('sqlite::memory:')).close();
      console.log(JSON.stringify({ before, after: sqlite() }));`;
    const out = execFileSync(NODE, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ before: false, after: true });
  });
});

describe('the CLI executable', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('keeps Node 22’s SQLite experimental warning out of its output, and every other warning in', () => {
    const script = `
      const { quietSqliteWarning } = await import(${JSON.stringify(join(REPO_ROOT, 'dist/src/cli/warnings.js'))});
      quietSqliteWarning();
      process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
      process.emitWarning('something else', 'DeprecationWarning');`;
    const ran = spawnSync(NODE, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(ran.status).toBe(0);
    expect(ran.stderr).not.toMatch(/SQLite/);
    expect(ran.stderr).toMatch(/DeprecationWarning: something else/);
  });
});
