import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { World, builtinFlow, ensureBuilt, finish, turnsYaml } from './helpers/cli.js';

/**
 * `--trace FILE` holds what the database holds (inputs, tool results): like the database it is
 * created 0600, in folders created 0700, and an existing file is made 0600 too.
 */
describe('cli: --trace FILE permissions', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('creates the trace file 0600 and its folders 0700; makes an existing file 0600', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('turns.yaml', turnsYaml([finish]));
    const trace = join(w.dir, 'traces', 'deep', 'run.jsonl');
    const run = await w.cli([
      'run',
      flow,
      '--input',
      'x',
      '--model',
      'scripted:turns.yaml',
      '--trace',
      trace,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(trace).mode & 0o777).toBe(0o600);
    expect(statSync(join(w.dir, 'traces')).mode & 0o777).toBe(0o700);
    expect(statSync(join(w.dir, 'traces', 'deep')).mode & 0o777).toBe(0o700);
    expect(readFileSync(trace, 'utf8')).toMatch(/"type":"run.completed"/);

    const shared = w.write('shared.jsonl', '');
    chmodSync(shared, 0o640);
    const again = await w.cli([
      'run',
      flow,
      '--input',
      'x',
      '--model',
      'scripted:turns.yaml',
      '--trace',
      shared,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(statSync(shared).mode & 0o777).toBe(0o600);
  });
});
