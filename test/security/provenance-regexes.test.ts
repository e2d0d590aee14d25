import { describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { regexProblems } from '../../src/server/flow-regexes.js';

/** Flows sent over HTTP: the new JSONata places (trust paths, derive operands, field paths) are checked for slow regexes too. */
describe('slow regexes in provenance paths', () => {
  it('names a slow regex in trust.untrusted, in a derive operand and in a field path', async () => {
    const slow = '$[$contains(subject, /^(a+)+$/i)]';
    const loaded = await loadFlow(
      {
        id: 'x',
        tools: {
          read: { trust: { untrusted: [slow] } },
          pay: {
            write: true,
            params: {
              amount: { derive: { op: 'sum', of: [{ source: 'evidence', from: ['read'], path: slow }] } },
              to: { fields: { iban: { source: 'evidence', from: ['read'], path: slow } } },
            },
          },
        },
        nodes: [{ id: 'a', tools: ['read', 'pay'] }],
      },
      { knownTools: ['read', 'pay'] },
    );
    const problems = regexProblems(loaded.flow).join('\n');
    expect(problems).toContain('tools.read.trust.untrusted[0]');
    expect(problems).toContain('tools.pay.params.amount.derive.of[0].path');
    expect(problems).toContain('tools.pay.params.to.fields.iban.path');
  });
});
