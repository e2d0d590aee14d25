import { describe, expect, it } from 'vitest';
import { REQUEST_STATE_TTL_SECONDS, RequestStates } from '../../src/server/mcp-input-required.js';

/**
 * The request states of `input_required` rounds (src/server/mcp-input-required.ts): each one is
 * answered once while it is valid, and the record of answered ones does not grow past their validity.
 * The signature checks themselves are tested end to end (test/server/mcp-modern-http.test.ts).
 */
describe('request states', () => {
  it('answers a nonce once; a nonce past the validity is forgotten', () => {
    const states = new RequestStates();
    const t0 = 1_000_000;
    expect(states.consume('a', t0)).toBe(true);
    expect(states.consume('a', t0 + 1000)).toBe(false);
    expect(states.consume('b', t0 + 1000)).toBe(true);
    // After the validity a state no longer verifies, so its nonce need not be kept.
    const later = t0 + REQUEST_STATE_TTL_SECONDS * 1000 + 2000;
    expect(states.consume('c', later)).toBe(true);
    expect(states.consume('a', later)).toBe(true);
  });
});
