import {
  sourceKinds,
  type DeriveOperand,
  type FieldContract,
  type Flow,
  type ParamContract,
  type ToolPolicy,
} from '../domain/flow.js';
import type { ApprovalPolicy } from '../domain/flow-approval.js';
import { jsonataProblem } from './expressions.js';
import { jsonSchemaIssues } from './json-schema.js';
import { listOf, suggest, type PathSegment, type RawProblem } from './problems.js';

/** Names starting with this are the runtime's builtin tools (docs/observations.md): offered where a node can use them, never listed. */
export const BUILTIN_PREFIX = 'builtin_';

/** How a tool is named in a flow. */
export type ToolRefRole = 'node' | 'policy' | 'from' | 'verify' | 'recover' | 'output';

/** One place in a flow that names a tool (by the name the model sees). */
export interface ToolRef {
  readonly name: string;
  readonly role: ToolRefRole;
  readonly path: readonly PathSegment[];
  /** True when the name is the key at `path` (tool policies). */
  readonly atKey?: boolean;
  /** For a `from` entry with `where`: the argument names of the tool that `where` tests. */
  readonly whereArgs?: readonly string[];
}

/** Every place in `flow` that names a tool, in file order. */
export function toolRefs(flow: Flow): ToolRef[] {
  const refs: ToolRef[] = [];
  flow.nodes.forEach((node, i) => {
    node.tools.forEach((name, j) => refs.push({ name, role: 'node', path: ['nodes', i, 'tools', j] }));
    for (const [key, output] of Object.entries(node.outputs)) {
      output.from?.forEach((name, j) =>
        refs.push({ name, role: 'output', path: ['nodes', i, 'outputs', key, 'from', j] }),
      );
    }
  });
  for (const [tool, policy] of Object.entries(flow.tools)) {
    const base = ['tools', tool];
    refs.push({ name: tool, role: 'policy', path: base, atKey: true });
    for (const [param, contract] of Object.entries(policy.params ?? {})) {
      refs.push(...contractFromRefs([...base, 'params', param], contract));
      for (const [field, sub] of Object.entries(contract.fields ?? {}))
        refs.push(...contractFromRefs([...base, 'params', param, 'fields', field], sub));
    }
    if (policy.verify)
      refs.push({ name: policy.verify.tool, role: 'verify', path: [...base, 'verify', 'tool'] });
    if (policy.recover)
      refs.push({ name: policy.recover.tool, role: 'recover', path: [...base, 'recover', 'tool'] });
  }
  return refs;
}

/** The tools a contract's `from` names (and those of its derivation's operands, at any depth). */
function contractFromRefs(base: PathSegment[], contract: DeriveOperand): ToolRef[] {
  const refs: ToolRef[] = [];
  contract.from?.forEach((entry, j) =>
    refs.push(
      typeof entry === 'string'
        ? { name: entry, role: 'from', path: [...base, 'from', j] }
        : {
            name: entry.tool,
            role: 'from',
            path: [...base, 'from', j, 'tool'],
            ...(entry.where ? { whereArgs: Object.keys(entry.where) } : {}),
          },
    ),
  );
  contract.derive?.of.forEach((operand, j) =>
    refs.push(...contractFromRefs([...base, 'derive', 'of', j], operand)),
  );
  return refs;
}

/**
 * Static checks of the tools a flow names (docs/flows.md): builtin names are not listed, policies and `from`
 * name tools some node can see (or a recover tool, or a tool the host registers), verify tools are
 * visible where their write is, expressions parse, contracts are consistent, schemas are valid, aliases
 * name a declared server. Whether the tools exist at all is the server check's job (validate).
 */
export function toolProblems(flow: Flow, knownTools: ReadonlySet<string>): RawProblem[] {
  const problems: RawProblem[] = [];
  const listed = new Set(flow.nodes.flatMap((node) => node.tools));
  const recovers = Object.values(flow.tools).flatMap((policy) =>
    policy.recover ? [policy.recover.tool] : [],
  );
  const named = new Set([...listed, ...recovers, ...knownTools]);
  for (const ref of toolRefs(flow)) {
    if (ref.name.startsWith(BUILTIN_PREFIX)) {
      problems.push({
        ...ref,
        message: `"${ref.name}" is a builtin tool name; builtin tools are offered by the runtime where a node can use them and take no policy, so expected another tool`,
      });
    } else if (ref.role !== 'node' && ref.role !== 'recover' && !named.has(ref.name)) {
      problems.push({
        ...ref,
        message: `tool "${ref.name}" is not visible in any node${suggest(ref.name, named)}; expected a tool listed in a node's tools (listed: ${listOf(listed)})`,
      });
    }
  }
  flow.nodes.forEach((node, i) => {
    const seen = new Set<string>();
    node.tools.forEach((name, j) => {
      if (seen.has(name))
        problems.push({
          path: ['nodes', i, 'tools', j],
          message: `tool "${name}" is listed twice; expected each tool once`,
        });
      seen.add(name);
    });
    for (const [key, output] of Object.entries(node.outputs)) {
      if (output.from && !output.sources.includes('evidence')) {
        problems.push({
          path: ['nodes', i, 'outputs', key, 'from'],
          message: 'from names the tools whose evidence may be cited; expected sources to include evidence',
        });
      }
    }
  });
  for (const [tool, policy] of Object.entries(flow.tools))
    problems.push(...policyProblems(flow, tool, policy));
  problems.push(...aliasProblems(flow));
  return problems;
}

function policyProblems(flow: Flow, tool: string, policy: ToolPolicy): RawProblem[] {
  const base: PathSegment[] = ['tools', tool];
  const problems: RawProblem[] = [];
  const expression = (path: PathSegment[], text: string | undefined): void => {
    const why = text === undefined ? undefined : jsonataProblem(text);
    if (why) problems.push({ path: [...base, ...path], message: why });
  };
  for (const [param, contract] of Object.entries(policy.params ?? {}))
    problems.push(...paramProblems([...base, 'params', param], contract));
  if (policy.trust !== undefined && typeof policy.trust === 'object') {
    policy.trust.untrusted?.forEach((path, i) => expression(['trust', 'untrusted', i], path));
    policy.trust.confidential?.forEach((path, i) => expression(['trust', 'confidential', i], path));
  }
  expression(['response', 'okPath'], policy.response?.okPath);
  expression(['response', 'codePath'], policy.response?.codePath);
  expression(['response', 'messagePath'], policy.response?.messagePath);
  expression(['pending'], policy.pending);
  for (const kind of ['verify', 'recover'] as const) {
    const spec = policy[kind];
    if (!spec) continue;
    for (const [arg, text] of Object.entries(spec.args)) expression([kind, 'args', arg], text);
    expression(
      [kind, kind === 'verify' ? 'done' : 'found'],
      kind === 'verify' ? policy.verify?.done : policy.recover?.found,
    );
  }
  if (policy.pending !== undefined && !policy.verify) {
    problems.push({
      path: [...base, 'pending'],
      message: 'a pending write must be confirmed; expected verify: {tool, args, done} beside pending',
    });
  }
  if (policy.verify && policy.pending === undefined) {
    problems.push({
      path: [...base, 'verify'],
      message: 'verify confirms a pending write; expected pending beside it',
    });
  }
  if (policy.approval) problems.push(...approvalProblems(base, policy.approval));
  if (policy.write === false) {
    for (const key of ['pending', 'verify', 'recover', 'idempotent', 'approval', 'text'] as const) {
      if (policy[key] !== undefined)
        problems.push({
          path: [...base, key],
          atKey: true,
          message: `${key} applies to write tools only; expected write: true or no ${key}`,
        });
    }
  }
  if (policy.verify) problems.push(...verifyVisibility(flow, tool, policy.verify.tool));
  return problems;
}

/** An approval policy's rules parse; expiry keys go together (docs/approvals.md). */
function approvalProblems(base: PathSegment[], approval: ApprovalPolicy): RawProblem[] {
  const at = [...base, 'approval'];
  const problems: RawProblem[] = [];
  for (const key of ['auto', 'reject'] as const) {
    const text = approval[key];
    const why = text === undefined ? undefined : jsonataProblem(text);
    if (why) problems.push({ path: [...at, key], message: why });
  }
  const problem = (key: string, message: string): void => {
    problems.push({ path: [...at, key], atKey: true, message });
  };
  if (approval.expiresAfter === undefined) {
    if (approval.onExpiry !== undefined) problem('onExpiry', 'onExpiry needs expiresAfter beside it');
    if (approval.escalateTo !== undefined) problem('escalateTo', 'escalateTo needs expiresAfter beside it');
  }
  if (approval.onExpiry === 'escalate' && approval.escalateTo === undefined)
    problem('onExpiry', 'onExpiry escalate needs escalateTo: the roles to notify');
  if (approval.escalateTo !== undefined && approval.onExpiry !== 'escalate')
    problem('escalateTo', 'escalateTo applies to onExpiry escalate; expected onExpiry: escalate');
  return problems;
}

/** The model confirms a pending write by calling the verify tool, so it must see it where it sees the write. */
function verifyVisibility(flow: Flow, tool: string, verify: string): RawProblem[] {
  return flow.nodes
    .filter((node) => node.tools.includes(tool) && !node.tools.includes(verify))
    .map((node) => ({
      path: ['tools', tool, 'verify', 'tool'],
      message: `verify tool "${verify}" is not visible in node "${node.id}", where "${tool}" is; expected it in that node's tools (the model calls it to confirm the write)`,
    }));
}

function paramProblems(base: PathSegment[], contract: ParamContract | FieldContract): RawProblem[] {
  const problems: RawProblem[] = [];
  const evidence = sourceKinds(contract).includes('evidence');
  if (evidence && !contract.from) {
    problems.push({
      path: [...base, 'source'],
      message:
        'source: evidence needs from; expected from: [the tools whose results hold the allowed values]',
    });
  }
  for (const key of ['from', 'path', 'match'] as const) {
    if (!evidence && contract[key] !== undefined) {
      problems.push({
        path: [...base, key],
        atKey: true,
        message: `${key} applies to source: evidence only; expected source: evidence beside it`,
      });
    }
  }
  if (contract.path !== undefined) {
    const why = jsonataProblem(contract.path);
    if (why) problems.push({ path: [...base, 'path'], message: why });
  }
  if ('schema' in contract && contract.schema) {
    for (const issue of jsonSchemaIssues(contract.schema))
      problems.push({ path: [...base, 'schema', ...issue.path], message: issue.message });
  }
  problems.push(...provenanceProblems(base, contract));
  if ('fields' in contract && contract.fields) {
    for (const key of ['source', 'from', 'path', 'match', 'enum', 'untrusted', 'derive'] as const) {
      if (contract[key] !== undefined)
        problems.push({
          path: [...base, key],
          atKey: true,
          message: `${key} does not apply beside fields (each field has its own contract); expected it inside fields.<name>`,
        });
    }
    for (const [field, sub] of Object.entries(contract.fields))
      problems.push(...paramProblems([...base, 'fields', field], sub));
  }
  return problems;
}

/** `untrusted` needs evidence among the sources; `derive` stands alone and its operands are contracts. */
function provenanceProblems(base: PathSegment[], contract: DeriveOperand & { enum?: unknown }): RawProblem[] {
  const problems: RawProblem[] = [];
  const evidence = sourceKinds(contract).includes('evidence');
  if (contract.untrusted !== undefined && !evidence)
    problems.push({
      path: [...base, 'untrusted'],
      atKey: true,
      message:
        'untrusted says what a value found in untrusted text may be; expected source: evidence beside it',
    });
  const derive = contract.derive;
  if (!derive) return problems;
  for (const key of ['source', 'from', 'path', 'match', 'enum', 'untrusted'] as const) {
    if (contract[key] !== undefined)
      problems.push({
        path: [...base, key],
        atKey: true,
        message: `${key} does not apply beside derive (each operand has its own contract); expected it inside derive.of`,
      });
  }
  const at = [...base, 'derive'];
  if (derive.op === 'percentage' && derive.factor === undefined)
    problems.push({ path: [...at, 'op'], message: 'percentage needs factor (the percentage, e.g. 19.5)' });
  if (derive.op === 'difference' && derive.of.length < 2)
    problems.push({
      path: [...at, 'of'],
      message: 'difference needs at least two operands (the first minus the others)',
    });
  derive.of.forEach((operand, i) => {
    const where = [...at, 'of', i];
    if (operand.derive === undefined && sourceKinds(operand).length === 0)
      problems.push({ path: where, message: 'an operand needs source (evidence or user) or derive' });
    if (sourceKinds(operand).includes('evidence') && !operand.from)
      problems.push({
        path: [...where, 'source'],
        message:
          'source: evidence needs from; expected from: [the tools whose results hold the allowed values]',
      });
    if (operand.path !== undefined) {
      const why = jsonataProblem(operand.path);
      if (why) problems.push({ path: [...where, 'path'], message: why });
    }
    problems.push(...provenanceProblems(where, operand));
  });
  return problems;
}

function aliasProblems(flow: Flow): RawProblem[] {
  const problems: RawProblem[] = [];
  const servers = Object.keys(flow.mcpServers);
  const byName = new Map<string, string>();
  for (const [key, alias] of Object.entries(flow.aliases)) {
    const dot = key.indexOf('.');
    const server = dot > 0 ? key.slice(0, dot) : '';
    if (dot <= 0 || dot === key.length - 1) {
      problems.push({
        path: ['aliases', key],
        atKey: true,
        message: `expected <server>.<tool> (servers: ${listOf(servers)})`,
      });
    } else if (!servers.includes(server)) {
      problems.push({
        path: ['aliases', key],
        atKey: true,
        message: `unknown server "${server}"${suggest(server, servers)}; expected one of mcpServers: ${listOf(servers)}`,
      });
    }
    const other = byName.get(alias);
    if (other !== undefined)
      problems.push({
        path: ['aliases', key],
        message: `"${alias}" already names ${other}; expected a distinct name`,
      });
    byName.set(alias, key);
  }
  return problems;
}
