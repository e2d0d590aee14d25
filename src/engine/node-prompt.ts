import type { FlowNode } from '../domain/flow.js';
import { renderInstructions } from '../graph/templates.js';
import type { NodeExit } from '../loop/node-loop.js';
import { catalogFailureReason, describeError } from '../mcp/errors.js';
import { newNodeState } from '../records/run-state.js';
import type { ToolInvokerPort } from '../tools/call.js';
import type { RunSession } from './session.js';

/**
 * A node's `prompt` (docs/flows.md): the MCP server's prompt (`prompts/get`), fetched when the node run
 * starts and kept in the node run's state, so that a resumed node run (in any process) reads the same
 * text without asking again. Its arguments are rendered like instructions ({{input.…}},
 * {{nodes.<id>.outputs.<key>}}); the prompt's own text is not (it is the server's). A failure to get
 * it fails the node the way a tool catalog that cannot be loaded does (TOOLS_UNAVAILABLE, retryable).
 */
export async function fetchNodePrompt(
  session: RunSession,
  node: FlowNode,
  invoker: ToolInvokerPort,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<Extract<NodeExit, { kind: 'failed' }> | null> {
  const spec = node.prompt;
  if (!spec) return null;
  const state = (session.doc.node ??= newNodeState(node.id));
  if (state.prompt !== undefined) return null;
  const scope = { input: session.current.input, nodes: session.run.nodeOutputs };
  const args: Record<string, string> = {};
  for (const [key, value] of Object.entries(spec.args ?? {})) args[key] = renderInstructions(value, scope);
  try {
    if (!invoker.promptText) throw new Error('this runtime cannot get MCP prompts');
    state.prompt = await invoker.promptText(spec.server, spec.name, args, options);
    return null;
  } catch (error) {
    return {
      kind: 'failed',
      reason: catalogFailureReason(error),
      message: `prompt ${spec.name} of MCP server ${spec.server}: ${describeError(error)}`,
    };
  }
}

/** The node's instructions as the model reads them: its rendered `instructions`, then its prompt's text. */
export function withPrompt(instructions: string, prompt: string | undefined): string {
  if (prompt === undefined || prompt === '') return instructions;
  return instructions === '' ? prompt : `${instructions}\n\n${prompt}`;
}
