import { canonicalJson } from '../domain/fingerprint.js';
import type { InFlightWrite, RunState, StartedTask } from '../records/run-state.js';
import type { ToolCall } from './call.js';
import { parseArgs } from './guards/arg-policy.js';

/**
 * The write a driver left in flight for this very call (docs/durability.md): a mark of the same node,
 * call id, tool and arguments. The arguments count, not only the ids: the items of a map node share
 * their node id, and a provider may give their calls the same id, so another item's write — in flight
 * now, or left by the same dead driver — is never taken for this one.
 */
export function interruptedWrite(
  run: Pick<RunState, 'inFlight'>,
  nodeId: string,
  call: Pick<ToolCall, 'callId' | 'tool' | 'rawArgs'>,
): InFlightWrite | undefined {
  if (run.inFlight.length === 0) return undefined;
  const marks = run.inFlight.filter(
    (w) => w.callId === call.callId && w.nodeId === nodeId && w.tool === call.tool,
  );
  if (marks.length === 0) return undefined;
  const parsed = parseArgs(call.rawArgs, 'en');
  if (!parsed.ok) return undefined;
  const args = canonicalJson(parsed.args);
  return marks.find((w) => canonicalJson(w.args) === args);
}

/**
 * The MCP task this very call started (docs/mcp.md): of the same node, call id and fingerprint (and
 * server, when given). A parallel branch may run the same call (same fingerprint) as a task of its own.
 */
export function callTaskOf(
  run: Pick<RunState, 'tasks'>,
  call: { nodeId: string; callId: string; fingerprint: string; server?: string },
): StartedTask | undefined {
  return (run.tasks ?? []).find(
    (t) =>
      t.fingerprint === call.fingerprint &&
      t.nodeId === call.nodeId &&
      t.callId === call.callId &&
      (call.server === undefined || t.server === call.server),
  );
}
