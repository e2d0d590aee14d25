// Approval of writes, in one module (docs/design.md, "Approval"): the write gate that stops a write
// needing approval and consumes the approval once the write ran (gate.ts), builtin_node_approval that
// suspends the run for a person (builtin.ts), the person's answer applied to the run (resolution.ts),
// and crash recovery of a write that was in flight, approved or not (recovery.ts). The pipeline uses
// the gate, the builtin registry the builtin, the engine `approve`/`reject` and `recoverWrite`.

export { WRITE_GATE_PRODUCES, writeGateAfter, writeGateGuard } from './gate.js';
export { approvalTool, waitingGatedCall } from './builtin.js';
export { approve, reject, type ApprovalTarget, type Decision } from './resolution.js';
export { recoverWrite } from './recovery.js';
