import { describe, expect, it } from 'vitest';
import { evidenceReadTool } from '../../../src/tools/builtin/evidence-read.js';
import type { CallInput } from '../../../src/tools/call.js';

/** The parts of a CallInput the tool reads: the run's evidence and the locale. */
const ctx = {
  locale: 'en',
  run: {
    evidence: [
      {
        id: 'ev_1',
        tool: 'space_list',
        outcome: 'SUCCESS',
        args: {},
        payload: { data: [{ name: 'aaa' }, { name: 'b' }] },
      },
    ],
  },
} as unknown as CallInput;

async function read(path: string) {
  const result = await evidenceReadTool.execute({ id: 'ev_1', path }, ctx);
  return 'observation' in result ? result.observation : result;
}

describe('builtin_evidence_read with a path the model wrote', () => {
  it('reads a part with a linear-time regex, and refuses one that could backtrack without bound', async () => {
    const fine = await read('$count(data[$contains(name, /a+/)])');
    expect(fine.ok).toBe(true);
    expect(fine.data).toBe(1);
    // Refused before it runs: run, this pattern would backtrack 2^40 times (far past the test's timeout).
    const slow = await read(`$contains("${'a'.repeat(40)}!", /^(a+)+$/i)`);
    expect(slow.errorCode).toBe('ARG_REJECTED');
    expect(slow.reason).toMatch(/linear time/);
  });
});
