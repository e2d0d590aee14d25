import { join } from 'node:path';
import { dataDir } from './data-dir.js';

/** One turn of a scripted model: the calls it makes. */
export interface Turn {
  calls: { tool: string; args: Record<string, unknown> }[];
}

/**
 * The scripted turns of a fully compromised model: each call in order — a write (a tool of `writes`)
 * is the call, the approval request and the call again once approved (the runtime gates every write)
 * — then the reply.
 */
export function scriptTurns(
  calls: readonly { function: string; args: Record<string, unknown> }[],
  writes: ReadonlySet<string>,
  reply = 'Done.',
): Turn[] {
  const turns: Turn[] = [];
  for (const c of calls) {
    turns.push({ calls: [{ tool: c.function, args: c.args }] });
    if (!writes.has(c.function)) continue;
    turns.push({
      calls: [{ tool: 'builtin_node_approval', args: { tool: c.function, summary: `${c.function}` } }],
    });
    turns.push({ calls: [{ tool: c.function, args: c.args }] });
  }
  turns.push({ calls: [{ tool: 'builtin_node_finish', args: { summary: reply } }] });
  return turns;
}

/** The built MCP server of the port (dist/bench/agentdojo/server.js). */
export function builtServer(): string {
  return join(dataDir(), '..', '..', '..', 'dist', 'bench', 'agentdojo', 'server.js');
}
