import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { World, builtinFlow, ensureBuilt, turnsYaml } from './helpers/cli.js';

/** Issue 29: the CLI prints the run's `reply` (its answer to the person) on completion and in `--json`. */
describe('cli: reply', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('--json carries reply; without --json the closing lines say `reply: …` on stderr, stdout empty', async () => {
    const flow = w.write('flow.yaml', builtinFlow('    answer: text'));
    w.write('turns.yaml', turnsYaml([{ text: 'Alice owns the printer ticket.', calls: [] }]));
    const json = await w.cli(['run', flow, '--input', 'who?', '--model', 'scripted:turns.yaml', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json).toMatchObject({ status: 'completed', reply: 'Alice owns the printer ticket.' });

    const plain = await w.cli(['run', flow, '--input', 'who?', '--model', 'scripted:turns.yaml']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toContain('reply: Alice owns the printer ticket.');
  });

  it('a suspended run has reply null in --json', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write(
      'turns.yaml',
      turnsYaml([{ calls: [{ tool: 'builtin_node_follow_up', args: { question: 'Which?' } }] }]),
    );
    const r = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:turns.yaml', '--json']);
    expect(r.code).toBe(3);
    expect(r.json).toMatchObject({ status: 'suspended', reply: null });
  });
});
