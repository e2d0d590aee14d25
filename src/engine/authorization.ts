import { hint } from '../domain/hints.js';
import { Observation } from '../domain/observation.js';
import type { Flow } from '../domain/flow.js';
import type { NodeExit } from '../loop/node-loop.js';
import { unauthorizedServer } from '../mcp/errors.js';
import type { AuthorizationPending, FollowUpPending, PendingItem } from '../records/pending.js';
import { authorizationSuspension, personAuthorizes } from '../tools/guards/authorize.js';
import { pendingId } from './pending-id.js';
import type { RunSession } from './session.js';

/**
 * The MCP server a person can authorize when listing the flow's tools failed for want of
 * authorization (docs/mcp.md, "Connect"), or undefined when the failure is something else or the
 * server authorizes itself (client credentials) or cannot be authorized (no `auth`).
 */
export function catalogAuthorization(flow: Flow, error: unknown): string | undefined {
  const server = unauthorizedServer(error);
  return server !== undefined && personAuthorizes(flow, server) ? server : undefined;
}

/**
 * Suspends the run before the node's first model call because MCP server `server` refused to list its
 * tools until a person authorizes it: there is no call behind it, so answering it (the OAuth
 * callback, or `answer` after `mcp login`) continues the node where it stood and lists the tools
 * again. The pending item is a question with `authorization`, traced like any suspension.
 */
export async function suspendForCatalog(
  session: RunSession,
  flow: Flow,
  nodeId: string,
  server: string,
): Promise<NodeExit> {
  const { suspension } = authorizationSuspension(flow, server);
  // Each refusal is another item: a late answer naming the previous one is refused.
  const callId = `authorize:${server}:${session.current.lastSeq}`;
  const pending: PendingItem = { ...suspension.pending, id: pendingId(session, callId, suspension.kind) };
  session.emit({ type: 'node.suspended', nodeId, kind: suspension.kind, pending });
  session.emit({ type: 'run.suspended', nodeId, kind: suspension.kind, pending });
  session.update({
    status: 'suspended',
    suspension: { kind: suspension.kind, pending },
    leaseOwner: null,
    leaseExpiresAt: null,
  });
  await session.checkpoint();
  return { kind: 'suspended' };
}

/** The authorization a suspended run waits for, or undefined when it waits for something else. */
export function authorizationOf(pending: PendingItem | undefined): AuthorizationPending | undefined {
  return (pending as FollowUpPending | undefined)?.authorization;
}

/**
 * The person attended to the authorization the run waited for (the OAuth callback stored the tokens,
 * or they ran `mcp login` and answered): traces `run.resumed`; a refused call gets AUTHORIZATION_ANSWERED
 * as its observation (the model calls again), a refused listing leaves the node to list the tools again.
 */
export function applyAuthorization(
  session: RunSession,
  flow: Flow,
  authorization: AuthorizationPending,
  response: { answer: string; who: string | null },
): void {
  const suspended = session.doc.loop.suspended;
  const nodeId = session.doc.nodeId ?? undefined;
  session.emit({
    type: 'run.resumed',
    ...(nodeId === undefined ? {} : { nodeId }),
    kind: 'FOLLOW_UP',
    answer: response.answer,
    who: response.who,
  });
  if (!suspended) return;
  const params = { server: authorization.server, tool: authorization.tool ?? suspended.tool };
  const observation = Observation.success(hint(flow.locale, 'AUTHORIZATION_ANSWERED', params), {
    server: authorization.server,
  });
  session.doc.loop.suspended = null;
  session.doc.loop.resolved = { call: suspended, observation: observation.toJSON() };
}
