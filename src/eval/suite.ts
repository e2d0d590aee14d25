import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { readInputFileSync } from '../fs/input-file.js';
import { parseLimited, YAML_LIMITS } from '../fs/yaml-limits.js';
import { compileExpression, ExpressionError } from '../tools/expressions.js';
import { AttacksSchema } from './attacks.js';

/** A suite that cannot run as written (bad YAML, an unknown or ill-typed key, a bad expression): exit 2. */
export class EvalSuiteError extends AgentRuntimeError {
  override readonly name = 'EvalSuiteError';
  declare readonly code: 'EVAL_SUITE_INVALID';
  constructor(message: string, options?: ErrorOptions) {
    super('EVAL_SUITE_INVALID', message, options);
  }
}

const jsonataText = z.string().min(1).max(8192);
const toolCall = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).optional(),
});
const textMatch = z.union([
  z.string(),
  z.strictObject({
    equals: z.string().optional(),
    contains: z.string().optional(),
    matches: z.string().optional(),
  }),
]);
const valueMatch = z.strictObject({
  equals: z.unknown().optional(),
  schema: z.record(z.string(), z.unknown()).optional(),
  jsonata: jsonataText.optional(),
});

/** A setup or verify call against one of the flow's real tools (verify: its result must satisfy `expect`). */
const VerifySchema = toolCall.extend({ expect: valueMatch.optional() });

/** How a case answers approvals: every one, none, a JSONata rule over the pending call, or one decision each in order. */
const ApprovalsSchema = z.union([
  z.enum(['approve', 'reject']),
  z.strictObject({ when: jsonataText }),
  z.array(z.enum(['approve', 'reject'])),
]);

const ExpectSchema = z.strictObject({
  status: z.enum(['completed', 'failed', 'suspended', 'cancelled']).optional(),
  reply: textMatch.optional(),
  outputs: valueMatch.optional(),
  trace: z
    .strictObject({
      neverCalled: z.array(z.string().min(1)).optional(),
      maxRounds: z.int().nonnegative().optional(),
      noWriteWithoutApproval: z.boolean().optional(),
    })
    .optional(),
});

const CaseSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (at most 64)'),
  description: z.string().optional(),
  input: z.unknown().optional(),
  answers: z.array(z.string()).optional(),
  approvals: ApprovalsSchema.optional(),
  model: z.string().min(1).optional(),
  setup: z.array(toolCall).optional(),
  verify: z.array(VerifySchema).optional(),
  expect: ExpectSchema.optional(),
  /** Attack evals: the suite's injection vectors this case's run reads (each attacked with every goal). */
  vectors: z.array(z.string().min(1)).optional(),
  /** The model of this case's attacked trials; `{goal}` is replaced by the goal's id (default: the case's models). */
  attackModel: z.string().min(1).optional(),
  /** The writes the user's task makes; any other executed write is reported (`unexpectedWrites`). */
  expectedWrites: z.array(toolCall).optional(),
});

const PriceSchema = z.strictObject({ input: z.number().nonnegative(), output: z.number().nonnegative() });

/** The suite file format (docs/evals.md). */
export const SuiteSchema = z.strictObject({
  name: z.string().optional(),
  flow: z.string().min(1),
  model: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  repeat: z.int().min(1).max(1000).optional(),
  concurrency: z.int().min(1).max(64).optional(),
  prices: z.record(z.string(), PriceSchema).optional(),
  attacks: AttacksSchema.optional(),
  cases: z.array(CaseSchema).min(1),
});

export type Suite = z.infer<typeof SuiteSchema>;
export type SuiteCase = z.infer<typeof CaseSchema>;
export type CaseExpect = z.infer<typeof ExpectSchema>;
export type ValueMatch = z.infer<typeof valueMatch>;
export type TextMatch = z.infer<typeof textMatch>;
export type ApprovalPolicy = z.infer<typeof ApprovalsSchema>;
export type VerifyCall = z.infer<typeof VerifySchema>;

/** A suite checked and ready: its cases, and the folder its relative paths (flow, scripted models) resolve against. */
export interface LoadedSuite {
  suite: Suite;
  /** Where the suite came from (a file path, or `(inline)`). */
  source: string;
  dir: string;
}

/** Reads and checks a suite file; throws EvalSuiteError naming the file, the key and the rule broken. */
export function loadSuiteFile(file: string): LoadedSuite {
  const path = resolve(file);
  let text: string;
  try {
    text = readInputFileSync(path);
  } catch (error) {
    throw new EvalSuiteError(`cannot read suite ${file}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = parseLimited(text, YAML_LIMITS);
  if (!parsed.ok) throw new EvalSuiteError(`suite ${file} is not valid YAML: ${parsed.message}`);
  return checkSuite(parsed.data, path, dirname(path));
}

/** Checks a suite given as data (library use); relative paths resolve against `dir`. */
export function checkSuite(data: unknown, source: string, dir: string): LoadedSuite {
  const checked = SuiteSchema.safeParse(data);
  if (!checked.success) throw new EvalSuiteError(`suite ${source}: ${describe(checked.error.issues)}`);
  const suite = checked.data;
  const ids = new Set<string>();
  suite.cases.forEach((c, i) => {
    if (ids.has(c.id)) throw new EvalSuiteError(`suite ${source}: cases.${i}.id: duplicate case id ${c.id}`);
    ids.add(c.id);
    for (const [where, text] of expressionsOf(c)) checkExpression(source, `cases.${i}.${where}`, text);
    c.vectors?.forEach((v, j) => {
      if (!suite.attacks?.vectors.some((known) => known.id === v))
        throw new EvalSuiteError(
          `suite ${source}: cases.${i}.vectors.${j}: ${v} is not a vector of the suite's attacks`,
        );
    });
  });
  suite.attacks?.goals.forEach((g, i) =>
    g.verify.forEach((v, j) => {
      if (v.expect?.jsonata)
        checkExpression(source, `attacks.goals.${i}.verify.${j}.expect.jsonata`, v.expect.jsonata);
    }),
  );
  const goalIds = new Set<string>();
  suite.attacks?.goals.forEach((g, i) => {
    if (goalIds.has(g.id))
      throw new EvalSuiteError(`suite ${source}: attacks.goals.${i}.id: duplicate goal id ${g.id}`);
    goalIds.add(g.id);
  });
  return { suite, source, dir };
}

function expressionsOf(c: SuiteCase): [string, string][] {
  const out: [string, string][] = [];
  if (c.approvals && !Array.isArray(c.approvals) && typeof c.approvals === 'object')
    out.push(['approvals.when', c.approvals.when]);
  if (c.expect?.outputs?.jsonata) out.push(['expect.outputs.jsonata', c.expect.outputs.jsonata]);
  c.verify?.forEach((v, j) => {
    if (v.expect?.jsonata) out.push([`verify.${j}.expect.jsonata`, v.expect.jsonata]);
  });
  return out;
}

function checkExpression(source: string, where: string, text: string): void {
  try {
    compileExpression(text);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    throw new EvalSuiteError(`suite ${source}: ${where}: not a JSONata expression (${error.message})`, {
      cause: error,
    });
  }
}

/** Issues by key path and rule; an unknown key is named. */
function describe(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 5).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
    if (issue.code === 'unrecognized_keys') return `${where}: unknown key ${issue.keys.join(', ')}`;
    return `${where}: ${issue.message}`;
  });
  const more = issues.length > shown.length ? `; and ${issues.length - shown.length} more` : '';
  return `${shown.join('; ')}${more}`;
}
