import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { World, ask, builtinFlow, ensureBuilt, finish, turnsYaml, type Summary } from './helpers/cli.js';

/** `say RUN_ID TEXT` as a subprocess on a SQLite file (docs/approvals.md, "Steering"). */
describe('cli: say', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('keeps the words for a suspended run, which reads them once it goes on; refusals exit 2 or 4', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('turns.yaml', turnsYaml([ask('Which card?'), finish]));
    const r = await w.cli(['run', flow, '--input', 'refund me', '--model', 'scripted:turns.yaml', '--json']);
    expect(r.code).toBe(3);
    const runId = (r.json as Summary).runId;

    const said = await w.cli(['say', runId, 'and send me the receipt', '--json']);
    expect(said.code, said.stderr).toBe(0);
    expect(said.json).toMatchObject({ runId, seq: 1, text: 'and send me the receipt', who: 'tester' });
    const plain = await w.cli(['say', runId, 'by e-mail']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(
      /^message 2 \(msg_[0-9a-f]{20}\) kept for run run_\w+: the run reads it at its next model round\n$/,
    );
    // Kept, not read: the run still waits for the answer.
    expect((await (await w.db()).events(runId)).filter((e) => e.type === 'run.message')).toEqual([]);

    const answered = await w.cli(['answer', runId, 'the first one', '--json']);
    expect(answered.code, answered.stderr).toBe(0);
    const events = await (await w.db()).events(runId);
    expect(events.filter((e) => e.type === 'run.message')).toMatchObject([
      { messageSeq: 1, text: 'and send me the receipt', who: 'tester', round: 2 },
      { messageSeq: 2, text: 'by e-mail', round: 2 },
    ]);
    const messages = (await (await w.db()).messages(runId, 'a#1')).map(
      (m) => m.message as { role: string; content?: unknown },
    );
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(
      expect.arrayContaining(['and send me the receipt', 'by e-mail']),
    );

    const before = await w.snapshot(runId);
    const ended = await w.cli(['say', runId, 'too late']);
    expect(ended.code).toBe(4);
    expect(ended.stderr).toBe(
      `agent-runtime: run ${runId} has ended; it takes no more messages (nothing changed)\n`,
    );
    expect(await w.snapshot(runId)).toEqual(before);
    const empty = await w.cli(['say', runId, '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('the message text is empty');
    const unknown = await w.cli(['say', 'run_nope', 'hi']);
    expect(unknown.code).toBe(2);
    const usage = await w.cli(['say', runId]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('RUN_ID and TEXT');
  }, 120_000);
});
