import type { DeriveOperand, Flow } from '../domain/flow.js';
import { linearTimeProblem, schemaRegExp } from '../domain/regex.js';
import { slowRegexes } from '../tools/expressions.js';

/**
 * The regexes of a flow sent over HTTP must run in linear time (docs/security.md): a regex runs as one
 * step nothing can interrupt, and V8 falls back to its linear engine only for those the engine
 * supports. Checked: `pattern` and `patternProperties` of the `input` schema and of params' `schema`
 * (compiled as Ajv will compile them, `schemaRegExp`), and regex literals of the flow's JSONata
 * expressions.
 */

/** Keywords whose values are data, not schemas: an object there with a `pattern` key is no pattern. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/** One problem per regex of `flow` that cannot run in linear time, each naming where it is. */
export function regexProblems(flow: Flow): string[] {
  const problems = schemaProblems('input', flow.input);
  for (const [tool, policy] of Object.entries(flow.tools))
    for (const [param, contract] of Object.entries(policy.params ?? {}))
      if (contract.schema)
        problems.push(...schemaProblems(`tools.${tool}.params.${param}.schema`, contract.schema));
  for (const [where, text] of flowExpressions(flow)) problems.push(...expressionProblems(where, text));
  return problems;
}

function schemaProblems(base: string, schema: unknown): string[] {
  const problems: string[] = [];
  const check = (where: string, pattern: string): void => {
    let why: string | undefined;
    try {
      why = linearTimeProblem(schemaRegExp(pattern, 'u'));
    } catch (error) {
      why = `not a valid regex (${(error as Error).message})`;
    }
    if (why !== undefined) problems.push(`${where}: ${why}`);
  };
  const stack: [unknown, string][] = [[schema, base]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [value, path] = next;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (DATA_KEYWORDS.has(key)) continue;
      if (key === 'pattern' && typeof child === 'string') check(`${path}.pattern`, child);
      if (key === 'patternProperties' && typeof child === 'object' && child !== null && !Array.isArray(child))
        for (const pattern of Object.keys(child))
          check(`${path}.patternProperties[${JSON.stringify(pattern)}]`, pattern);
      stack.push([child, `${path}.${key}`]);
    }
  }
  return problems;
}

/** Every JSONata expression of a flow, with where it is. */
function flowExpressions(flow: Flow): [string, string][] {
  const out: [string, string][] = [];
  const add = (where: string, text: string | undefined): void => {
    if (text !== undefined) out.push([where, text]);
  };
  flow.edges.forEach((edge, i) => add(`edges[${i}].when`, edge.when));
  for (const [tool, policy] of Object.entries(flow.tools)) {
    const base = `tools.${tool}`;
    for (const [param, contract] of Object.entries(policy.params ?? {})) {
      contractPaths(`${base}.params.${param}`, contract, add);
      for (const [field, sub] of Object.entries(contract.fields ?? {}))
        contractPaths(`${base}.params.${param}.fields.${field}`, sub, add);
    }
    if (policy.trust !== undefined && typeof policy.trust === 'object') {
      policy.trust.untrusted?.forEach((path, i) => add(`${base}.trust.untrusted[${i}]`, path));
      policy.trust.confidential?.forEach((path, i) => add(`${base}.trust.confidential[${i}]`, path));
    }
    for (const key of ['okPath', 'codePath', 'messagePath'] as const)
      add(`${base}.response.${key}`, policy.response?.[key]);
    add(`${base}.pending`, policy.pending);
    for (const [arg, text] of Object.entries(policy.verify?.args ?? {}))
      add(`${base}.verify.args.${arg}`, text);
    add(`${base}.verify.done`, policy.verify?.done);
    for (const [arg, text] of Object.entries(policy.recover?.args ?? {}))
      add(`${base}.recover.args.${arg}`, text);
    add(`${base}.recover.found`, policy.recover?.found);
  }
  return out;
}

/** The `path` of a contract and of its derivation's operands, at any depth. */
function contractPaths(
  where: string,
  contract: DeriveOperand,
  add: (where: string, text: string | undefined) => void,
): void {
  add(`${where}.path`, contract.path);
  contract.derive?.of.forEach((operand, i) => contractPaths(`${where}.derive.of[${i}]`, operand, add));
}

/** The regex literals of one expression that cannot run in linear time, each naming where it is. */
function expressionProblems(where: string, text: string): string[] {
  try {
    return slowRegexes(text).map((why) => `${where}: ${why}`);
  } catch (error) {
    return [`${where}: not a JSONata expression (${(error as Error).message})`];
  }
}
