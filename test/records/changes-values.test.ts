import { describe, expect, it } from 'vitest';
import { applyChanges, ChangeLog } from '../../src/records/changes.js';
import { newNodeState, newRunState } from '../../src/records/run-state.js';

/**
 * A call's changes are values kept in order on its report (CallReport.changes): the reducer copies the
 * records they carry and replaces a record a later change decides, so an earlier change reads as it was
 * made, and replaying a prefix of a report's changes gives the state the call saw at that point.
 */
describe("a report's changes keep what they were", () => {
  it('the gate change still says the call was not declined when it was recorded', () => {
    const run = newRunState('r', {});
    const node = newNodeState('n');
    const log = new ChangeLog({ run, node });
    log.record({ kind: 'gate', call: { tool: 'save', args: {}, fingerprint: 'fp', provenance: {} } });
    const first = log.list();
    log.record({ kind: 'gateDecided', fingerprint: 'fp', declined: true, decidedBy: 'reject' });
    expect(first[0]).toEqual({
      kind: 'gate',
      call: { tool: 'save', args: {}, fingerprint: 'fp', provenance: {} },
    });
    // Replaying only the first change on a fresh node must not already show the later decision.
    const fresh = newNodeState('n');
    applyChanges({ run: newRunState('r', {}), node: fresh }, first);
    expect(fresh.gatedCall?.declined).toBeUndefined();
  });
});
