import { sourceKinds, type FieldContract, type Flow, type ParamContract } from '../domain/flow.js';
import type { RemoteTool } from './mcp-check.js';
import type { RawProblem } from './problems.js';

/**
 * `validate`'s warnings about untrusted text (docs/flows.md, "Untrusted text"): a node where a write
 * tool and a tool whose results are untrusted text are both visible lets the model copy an attacker's
 * recipient from the text into the write. Each recipient-like parameter of such a write needs a
 * contract that keeps untrusted text out: `untrusted:`, `source: user` (alone), `enum` or `derive`.
 * Warnings never make a flow invalid.
 */

/** Parameter names that say where a write sends something or whom it concerns. */
export const RECIPIENT_LIKE =
  /recipient|receiver|payee|beneficiar|iban|account|e-?mail|address|url|link|^to$|^cc$|^bcc$|channel|user|phone|destination|target|owner|member/i;

/**
 * The warnings of `flow`. `listed`: the tools of each server as listed (model-facing name → tool),
 * when the server check ran; without it only the flow's own `write` and `trust` keys count.
 */
export function untrustedWarnings(
  flow: Flow,
  listed: ReadonlyMap<string, RemoteTool> = new Map(),
): RawProblem[] {
  const warnings: RawProblem[] = [];
  const isWrite = (name: string): boolean => {
    const policy = flow.tools[name];
    if (policy?.write !== undefined) return policy.write;
    const remote = listed.get(name);
    return remote !== undefined && remote.readOnlyHint !== true;
  };
  const isUntrusted = (name: string): boolean => {
    const trust = flow.tools[name]?.trust;
    if (typeof trust === 'string') return trust === 'untrusted';
    if (trust?.untrusted !== undefined) return true;
    return listed.get(name)?.openWorldHint === true;
  };
  flow.nodes.forEach((node, i) => {
    const untrusted = node.tools.filter(isUntrusted);
    if (untrusted.length === 0) return;
    node.tools.forEach((tool, j) => {
      if (!isWrite(tool)) return;
      const readers = untrusted.filter((name) => name !== tool);
      if (readers.length === 0) return;
      const open = recipientParams(flow, tool, listed.get(tool)).filter(
        (param) => !keepsUntrustedOut(flow.tools[tool]?.params?.[param]),
      );
      if (open.length === 0) return;
      warnings.push({
        path: ['nodes', i, 'tools', j],
        message: `write tool "${tool}" shares node "${node.id}" with ${readers.map((r) => `"${r}"`).join(', ')}, whose results are untrusted text, and its recipient-like parameter${open.length === 1 ? '' : 's'} ${open.join(', ')} ha${open.length === 1 ? 's' : 've'} no contract keeping untrusted text out; expected untrusted: refuse | single | pinned, source: user, enum or derive (or a node with sees: request deciding the write)`,
      });
    });
  });
  return warnings;
}

/** The recipient-like parameters of a write: those of its contracts and of its listed input schema. */
function recipientParams(flow: Flow, tool: string, remote: RemoteTool | undefined): string[] {
  const names = new Set(Object.keys(flow.tools[tool]?.params ?? {}));
  const properties = (remote?.inputSchema as { properties?: unknown } | undefined)?.properties;
  if (properties !== null && typeof properties === 'object')
    for (const key of Object.keys(properties)) names.add(key);
  return [...names].filter((name) => RECIPIENT_LIKE.test(name));
}

/** True for a contract under which a value found only in untrusted text cannot pass. */
function keepsUntrustedOut(contract: ParamContract | FieldContract | undefined): boolean {
  if (!contract) return false;
  if (contract.untrusted !== undefined || contract.enum !== undefined || contract.derive !== undefined)
    return true;
  if ('fields' in contract && contract.fields)
    return Object.values(contract.fields).every((field) => keepsUntrustedOut(field));
  const kinds = sourceKinds(contract);
  return kinds.length > 0 && !kinds.includes('evidence');
}
