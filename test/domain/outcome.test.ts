import { describe, expect, it } from 'vitest';
import { Outcome } from '../../src/domain/outcome.js';

describe('Outcome', () => {
  it.each([
    ['SUCCESS', true, false],
    ['FAILED', false, true],
    ['REJECTED', false, true],
    ['DEFERRED', false, false],
  ] as const)('%s: advances=%s stalls=%s', (name, advances, stalls) => {
    const outcome = Outcome.of(name);
    expect(outcome.name).toBe(name);
    expect(outcome.advances()).toBe(advances);
    expect(outcome.stalls()).toBe(stalls);
  });

  it('has exactly four values, each a singleton', () => {
    expect(Outcome.values.map((o) => o.name)).toEqual(['SUCCESS', 'FAILED', 'REJECTED', 'DEFERRED']);
    expect(Outcome.of('FAILED')).toBe(Outcome.FAILED);
  });

  it('refuses unknown names', () => {
    expect(() => Outcome.of('success')).toThrow(/unknown outcome "success"/);
  });

  it('persists as its name', () => {
    expect(JSON.stringify([Outcome.DEFERRED])).toBe('["DEFERRED"]');
    expect(String(Outcome.REJECTED)).toBe('REJECTED');
  });
});
