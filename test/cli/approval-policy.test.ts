import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, World, ensureBuilt, finish, turnsYaml, type Summary } from './helpers/cli.js';

/**
 * `approve` on a local store (docs/approvals.md): the OS user is the person, several approvers are
 * counted by it and `status` shows who has approved; `approve --args JSON` approves edited arguments
 * once the guards passed them.
 */

const TOOLS = join(REPO_ROOT, 'test/fixtures/interceptors/tools.mjs');

const flow = (approvers: string) => `id: refunds
locale: en
tools:
  refund:
    write: true
    params:
      amount: { source: user }
    approval:
      auto: args.amount <= 10
${approvers}
nodes:
  - id: pay
    tools: [customer_get, refund]
`;

const refund = (amount: unknown) => ({ calls: [{ tool: 'refund', args: { amount } }] });
const approval = { calls: [{ tool: 'builtin_node_approval', args: { tool: 'refund', summary: 'refund' } }] };

describe('cli: approval policies', { timeout: 180_000 }, () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  let log: string;
  beforeEach(() => {
    w = new World();
    log = join(w.dir, 'refunds.log');
  });
  afterEach(async () => {
    await w.dispose();
  });

  const as = (user: string, args: string[]) =>
    w.cli([...args, '--tools', TOOLS], { env: { USER: user, REFUND_LOG: log } });

  it('two different OS users approve; the starter and a second vote of the same user are refused (exit 4)', async () => {
    const file = w.write('flow.yaml', flow('      approvers: { count: 2 }'));
    w.write('turns.yaml', turnsYaml([refund(500), approval, refund(500), finish]));
    const run = await as('sam', [
      'run',
      file,
      '--input',
      'refund 500',
      '--model',
      'scripted:turns.yaml',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(3);
    const runId = (run.json as Summary).runId;
    const starter = await as('sam', ['approve', runId]);
    expect([starter.code, starter.stderr]).toEqual([4, expect.stringContaining('sam started the run')]);
    const first = await as('olivia', ['approve', runId]);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toContain('approved by 1 of 2: olivia');
    const status = await w.cli(['status', runId]);
    expect(status.stderr + status.stdout).toContain('approved by 1 of 2: olivia');
    const again = await as('olivia', ['approve', runId]);
    expect([again.code, again.stderr]).toEqual([4, expect.stringContaining('olivia has already approved')]);
    const second = await as('oscar', ['approve', runId, '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect((second.json as Summary).status).toBe('completed');
    expect(readFileSync(log, 'utf8')).toBe('500\n');
  });

  it('approve --args: arguments the schema refuses exit 2 naming the check, good ones run exactly', async () => {
    const file = w.write('flow.yaml', flow(''));
    w.write('turns.yaml', turnsYaml([refund(500), approval, refund(50), finish]));
    const run = await as('sam', [
      'run',
      file,
      '--input',
      'refund 500',
      '--model',
      'scripted:turns.yaml',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(3);
    const runId = (run.json as Summary).runId;
    const notJson = await as('olivia', ['approve', runId, '--args', 'amount=50']);
    expect([notJson.code, notJson.stderr]).toEqual([2, expect.stringContaining('--args is not JSON')]);
    const bad = await as('olivia', ['approve', runId, '--args', '{"amount":"fifty"}']);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringMatching(/edited arguments of refund are refused\n\s+ARG_REJECTED: /),
    ]);
    const good = await as('olivia', ['approve', runId, '--args', '{"amount":50}', '--json']);
    expect(good.code, good.stderr).toBe(0);
    expect((good.json as Summary).status).toBe('completed');
    expect(readFileSync(log, 'utf8')).toBe('50\n');
  });
});
