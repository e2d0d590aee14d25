import { canonicalJson } from '../domain/fingerprint.js';
import { validateAgainst } from '../flow/json-schema.js';
import { evaluateCondition, ExpressionError } from '../tools/expressions.js';
import type { TraceMetrics } from './metrics.js';
import type { CaseExpect, TextMatch, ValueMatch } from './suite.js';

/** What a trial came to, as the expectations read it. */
export interface TrialFacts {
  status: string;
  reply: string | null;
  outputs: Record<string, Record<string, unknown>>;
  input: unknown;
  metrics: TraceMetrics;
}

/** Every expectation of a case the trial broke, one readable line each (empty: it passed). */
export async function checkExpect(expect: CaseExpect | undefined, facts: TrialFacts): Promise<string[]> {
  if (!expect) return [];
  const problems: string[] = [];
  if (expect.status !== undefined && facts.status !== expect.status)
    problems.push(`status: expected ${expect.status}, got ${facts.status}`);
  if (expect.reply !== undefined) {
    const broken = textProblem(expect.reply, facts.reply);
    if (broken) problems.push(`reply: ${broken}`);
  }
  if (expect.outputs !== undefined) {
    const scope = { outputs: facts.outputs, status: facts.status, reply: facts.reply, input: facts.input };
    for (const p of await valueProblems(expect.outputs, facts.outputs, scope)) problems.push(`outputs: ${p}`);
  }
  problems.push(...traceProblems(expect.trace, facts.metrics));
  return problems;
}

/** A text expectation: a plain string is exact; `contains`, `matches` (a regular expression) and `equals` as named. */
function textProblem(match: TextMatch, actual: string | null): string | null {
  const shown = actual === null ? 'no reply' : JSON.stringify(actual);
  const wanted = typeof match === 'string' ? { equals: match } : match;
  if (wanted.equals !== undefined && actual !== wanted.equals)
    return `expected ${JSON.stringify(wanted.equals)}, got ${shown}`;
  if (wanted.contains !== undefined && !(actual ?? '').includes(wanted.contains))
    return `expected it to contain ${JSON.stringify(wanted.contains)}, got ${shown}`;
  if (wanted.matches !== undefined && !new RegExp(wanted.matches, 'u').test(actual ?? ''))
    return `expected it to match /${wanted.matches}/, got ${shown}`;
  return null;
}

/**
 * A value expectation: `equals` (deep equality, key order ignored), `schema` (JSON Schema), `jsonata`
 * (truthy over `scope`). Used for outputs and for verify calls' results.
 */
export async function valueProblems(match: ValueMatch, value: unknown, scope: unknown): Promise<string[]> {
  const problems: string[] = [];
  if (match.equals !== undefined && canonicalJson(match.equals) !== canonicalJson(value))
    problems.push(`expected ${canonicalJson(match.equals)}, got ${canonicalJson(value)}`);
  if (match.schema !== undefined) {
    for (const line of validateAgainst(match.schema, value)) problems.push(`schema: ${line}`);
  }
  if (match.jsonata !== undefined) {
    try {
      if (!(await evaluateCondition(match.jsonata, scope)))
        problems.push(`jsonata ${JSON.stringify(match.jsonata)} is false`);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      problems.push(`jsonata ${JSON.stringify(match.jsonata)} failed: ${error.message}`);
    }
  }
  return problems;
}

function traceProblems(trace: CaseExpect['trace'], m: TraceMetrics): string[] {
  if (!trace) return [];
  const problems: string[] = [];
  for (const tool of trace.neverCalled ?? [])
    if (m.toolsCalled.includes(tool)) problems.push(`trace: ${tool} was called`);
  if (trace.maxRounds !== undefined && m.rounds > trace.maxRounds)
    problems.push(`trace: ${m.rounds} rounds, more than ${trace.maxRounds}`);
  if (trace.noWriteWithoutApproval === true && m.unapprovedWrites > 0)
    problems.push(`trace: ${m.unapprovedWrites} write(s) executed without an approval`);
  return problems;
}
