import { describe, expect, it } from 'vitest';
import { durationMs } from '../../src/domain/flow-approval.js';
import { problemLines } from './helpers.js';

/** The `approval` key of a tool policy (docs/approvals.md): its shape and the checks after parsing. */

const flow = (approval: string, write = 'true'): string => `id: t
locale: en
tools:
  refund:
    write: ${write}
    approval: ${approval}
nodes:
  - id: main
    tools: [refund]
`;

describe('approval policy in a flow', () => {
  it('a full policy is valid', async () => {
    const policy =
      '{ auto: "args.amount <= 10", reject: "args.amount > 5000", approvers: { count: 2, roles: [operator, admin] }, expiresAfter: 2h, onExpiry: escalate, escalateTo: [admin] }';
    expect(await problemLines(flow(policy))).toEqual([]);
  });

  it('refuses a rule that does not parse, a bad duration, an unknown role and a count out of range', async () => {
    const lines = await problemLines(
      flow('{ auto: "args.amount <=", expiresAfter: 2 hours, approvers: { count: 11, roles: [viewer] } }'),
    );
    expect(lines.join('\n')).toMatch(
      /approval\.expiresAfter: expected a duration such as 30s, 15m, 2h, 1d or PT15M/,
    );
    expect(lines.join('\n')).toMatch(/approval\.approvers\.count/);
    expect(lines.join('\n')).toMatch(/approval\.approvers\.roles\[0\]/);
    const parsed = await problemLines(flow('{ auto: "args.amount <=" }'));
    expect(parsed).toEqual([
      expect.stringMatching(/tools\.refund\.approval\.auto: expected a JSONata expression/),
    ]);
  });

  it('expiry keys go together, and a read takes no approval policy', async () => {
    expect(await problemLines(flow('{ onExpiry: reject }'))).toEqual([
      expect.stringMatching(/approval\.onExpiry: onExpiry needs expiresAfter beside it$/),
    ]);
    expect(await problemLines(flow('{ expiresAfter: 1d, onExpiry: escalate }'))).toEqual([
      expect.stringMatching(/approval\.onExpiry: onExpiry escalate needs escalateTo/),
    ]);
    expect(await problemLines(flow('{ expiresAfter: 1d, escalateTo: [admin] }'))).toEqual([
      expect.stringMatching(/approval\.escalateTo: escalateTo applies to onExpiry escalate/),
    ]);
    expect(await problemLines(flow('{ auto: "true" }', 'false'))).toEqual([
      expect.stringMatching(/tools\.refund\.approval: approval applies to write tools only/),
    ]);
  });

  it('durations are read in their unit', () => {
    expect([
      durationMs('500ms'),
      durationMs('30s'),
      durationMs('15m'),
      durationMs('2h'),
      durationMs('1d'),
    ]).toEqual([500, 30_000, 900_000, 7_200_000, 86_400_000]);
  });
});
