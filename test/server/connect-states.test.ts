import { describe, expect, it } from 'vitest';
import {
  ConnectStates,
  MAX_CONNECT_STATES_PER_TENANT,
  type ConnectState,
} from '../../src/server/connect-states.js';

/**
 * Connect states are bounded per tenant and per pending item: one tenant starting Connect over and
 * over (on one run, or on many) never forgets another tenant's pending sign-in.
 */

function entry(tenant: string | null, runId: string, pendingId = 'pnd_1'): Omit<ConnectState, 'expiresAt'> {
  return {
    tenant,
    runId,
    pendingId,
    serverId: 'wiki',
    verifier: 'v',
    redirectUrl: 'http://127.0.0.1/v1/oauth/callback',
    who: 'x',
  };
}

describe('ConnectStates', () => {
  it("keeps a tenant's pending sign-in through another tenant's 1,000 starts on its own run", () => {
    const states = new ConnectStates(() => 0);
    states.put('alice-state', entry('acme', 'run_a'));
    for (let i = 0; i < 1_000; i++) states.put(`bob-${i}`, entry('globex', 'run_b'));
    // Each start on the same pending item replaced the previous one: one kept for globex.
    expect(states.size).toBe(2);
    expect(states.take('bob-998')).toEqual({ ok: false, why: 'unknown' });
    expect(states.take('bob-999').ok).toBe(true);
    expect(states.take('alice-state')).toMatchObject({ ok: true, state: { tenant: 'acme', runId: 'run_a' } });
  });

  it("keeps a tenant's pending sign-in through another tenant's 1,000 starts on many runs", () => {
    const states = new ConnectStates(() => 0);
    states.put('alice-state', entry('acme', 'run_a'));
    for (let i = 0; i < 1_000; i++) states.put(`bob-${i}`, entry('globex', `run_${i}`));
    expect(states.size).toBe(MAX_CONNECT_STATES_PER_TENANT + 1);
    // globex's oldest were forgotten, its newest kept.
    expect(states.take('bob-0')).toEqual({ ok: false, why: 'unknown' });
    expect(states.take('bob-999').ok).toBe(true);
    expect(states.take('alice-state').ok).toBe(true);
  });

  it('keeps one state per pending item: items of one run are apart, and tenant null counts as one', () => {
    const states = new ConnectStates(() => 0, 600_000, 2);
    states.put('one', entry(null, 'run_1', 'pnd_1'));
    states.put('two', entry(null, 'run_1', 'pnd_2'));
    states.put('three', entry(null, 'run_2'));
    expect(states.take('one')).toEqual({ ok: false, why: 'unknown' });
    expect(states.take('two').ok).toBe(true);
    expect(states.take('three').ok).toBe(true);
  });

  it('still refuses an expired state and a replayed one', () => {
    let now = 0;
    const states = new ConnectStates(() => now, 1_000);
    states.put('late', entry('acme', 'run_a'));
    states.put('once', entry('acme', 'run_b'));
    expect(states.take('once').ok).toBe(true);
    expect(states.take('once')).toEqual({ ok: false, why: 'unknown' });
    now = 1_000;
    expect(states.take('late')).toEqual({ ok: false, why: 'expired' });
  });
});
