import { writeFileSync } from 'node:fs';
import type { Ablation } from '../engine/ablation.js';
import { DefaultToolbox } from '../engine/default-toolbox.js';
import type { FlowRef } from '../engine/toolbox.js';
import { resolveRunInput } from '../flow/input.js';
import type { LoadedFlow } from '../flow/load.js';
import { silentLogger } from '../log/logger.js';
import type { ModelClient } from '../model/model.js';
import type { ModelSpec } from '../model/resolve.js';
import { createRuntime, type CreateRuntimeOptions } from '../runtime/create.js';
import type { Runtime } from '../runtime/runtime.js';
import type { RunSummary } from '../records/summary.js';
import type { Store, StoredEvent, Usage } from '../store/store.js';
import type { LocalTool } from '../tools/tool.js';
import type { UserBuiltin } from '../tools/builtin/user.js';
import type { Guard } from '../tools/user-guards/define.js';
import { evaluateCondition } from '../tools/expressions.js';
import { checkExpect, valueProblems } from './expect.js';
import { replyOf, traceMetrics, type TraceMetrics } from './metrics.js';
import { EvalSuiteError, type ApprovalPolicy, type SuiteCase } from './suite.js';
import { isWriteTool } from '../domain/tool.js';
import { McpError } from '../mcp/errors.js';
import {
  unexpectedWrites,
  withAttack,
  withPlaceholder,
  type AttackGoal,
  type AttackVector,
  type ExecutedWrite,
} from './attacks.js';

/** What one trial needs: the flow, the case, the model and the variant. */
export interface TrialSpec {
  flow: LoadedFlow;
  case: SuiteCase;
  model: ModelSpec;
  ablation: Ablation;
  /** Where the trial's trace is written as JSON Lines (none: not written). */
  traceFile: string | null;
  /** The store of this trial's run (default: a fresh in-memory store). */
  store?: string | Store;
  /** Local tools of the trial's runtime and of its setup/verify calls (none: no local tools). */
  tools?: readonly LocalTool[];
  /** User guards of the trial's runtime (none: no user guards). */
  guards?: readonly Guard[];
  /** The application's own builtins of the trial's runtime (none: none). */
  builtins?: readonly UserBuiltin[];
  /** Passed to the trial's runtime (model providers other than `scripted:`). */
  providers?: CreateRuntimeOptions['providers'];
  /** An attacked trial: the attacker's text goes into `vectors` before the run; `goal` is checked after it. */
  attack?: { goal: AttackGoal; text: string; vectors: readonly AttackVector[] };
}

/** How an attacked trial came out: the user's task done despite the attack (utility), and the attacker's goal reached. */
export interface TrialAttack {
  goal: string;
  utility: boolean;
  succeeded: boolean;
}

/** What one trial came to (docs/evals.md, `trials[]` of results.json). */
export interface TrialResult {
  runId: string | null;
  status: string;
  passed: boolean;
  problems: string[];
  reply: string | null;
  metrics: TraceMetrics;
  usage: Usage;
  latencyMs: number;
  trace: string | null;
  /** Attacked trials only. */
  attack?: TrialAttack;
  /** Executed writes the case's `expectedWrites` do not hold (only when the case gives them). */
  unexpectedWrites?: ExecutedWrite[];
}

/** Person decisions a trial gives before it stops answering (a model asking forever). */
const MAX_RESPONSES = 50;

/**
 * Runs one trial: the case's setup calls, one run of the flow driven to its end (approvals by the
 * case's policy, follow-ups by its answers in order), the verify calls, then every expectation. A
 * trial's failure is data (its problems); only a broken suite (a setup tool the flow lacks) throws.
 */
export async function runTrial(spec: TrialSpec): Promise<TrialResult> {
  const started = Date.now();
  try {
    return await trialOnce(spec, started);
  } catch (error) {
    // An MCP server that did not answer in time (a loaded machine) fails this trial, not the eval.
    if (!(error instanceof McpError)) throw error;
    return failedEarly([`error: ${error.message}`], started);
  }
}

async function trialOnce(spec: TrialSpec, started: number): Promise<TrialResult> {
  const ref: FlowRef = { flow: spec.flow.flow, dir: spec.flow.dir, tenant: null };
  const localTools = [...(spec.tools ?? [])];
  const tools = needsTools(spec) ? new DefaultToolbox({ localTools, logger: silentLogger }) : null;
  const runtime = createRuntime({
    store: spec.store ?? 'memory',
    tools: localTools,
    guards: spec.guards ?? [],
    builtins: spec.builtins ?? [],
    logger: false,
    telemetry: false,
    ablation: spec.ablation,
    ...(spec.providers ? { providers: spec.providers } : {}),
  });
  try {
    const problems = tools ? await callAll(tools, ref, spec.case.setup ?? [], 'setup') : [];
    if (tools && spec.attack) {
      const text = spec.attack.text;
      const calls = spec.attack.vectors.flatMap((v) => v.setup.map((c) => withAttack(c, text)));
      problems.push(...(await callAll(tools, ref, calls, 'setup')));
    }
    if (problems.length > 0) return failedEarly(problems, started);
    const input = await caseInput(spec);
    const summary = await drive(runtime, ref, spec, input);
    const events = await collect(runtime, summary.runId);
    if (spec.traceFile) writeFileSync(spec.traceFile, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const metrics = traceMetrics(events, spec.flow.flow);
    const reply = replyOf(summary, events);
    problems.push(
      ...(await checkExpect(spec.case.expect, {
        status: summary.status,
        reply,
        outputs: summary.outputs,
        input,
        metrics,
      })),
    );
    // `{reply}` in a verify call's string arguments is the run's reply (a check that reads what the model said).
    const withReply = <T extends { tool: string; args?: Record<string, unknown> | undefined }>(c: T): T =>
      withPlaceholder(c, '{reply}', reply ?? '');
    if (tools)
      problems.push(...(await callAll(tools, ref, (spec.case.verify ?? []).map(withReply), 'verify')));
    const extra =
      spec.case.expectedWrites && tools ? await extraWrites(tools, ref, events, spec.case) : undefined;
    let attack: TrialAttack | undefined;
    if (tools && spec.attack) {
      const goal = spec.attack.goal;
      const held = (await callAll(tools, ref, goal.verify.map(withReply), 'verify')).length === 0;
      attack = { goal: goal.id, utility: problems.length === 0, succeeded: held };
      if (held) problems.push(`attack: the attacker's goal ${goal.id} was reached`);
    }
    return {
      runId: summary.runId,
      status: summary.status,
      passed: problems.length === 0,
      problems,
      reply,
      metrics,
      usage: summary.usage,
      latencyMs: Date.now() - started,
      trace: spec.traceFile,
      ...(attack ? { attack } : {}),
      ...(extra ? { unexpectedWrites: extra } : {}),
    };
  } finally {
    await runtime.close();
    await tools?.close();
  }
}

function needsTools(spec: TrialSpec): boolean {
  const c = spec.case;
  return (
    (c.setup?.length ?? 0) > 0 ||
    (c.verify?.length ?? 0) > 0 ||
    c.expectedWrites !== undefined ||
    spec.attack !== undefined
  );
}

/** The executed writes of the run that the case's `expectedWrites` do not hold (write tools as the catalog and flow say). */
async function extraWrites(
  toolbox: DefaultToolbox,
  ref: FlowRef,
  events: readonly StoredEvent[],
  c: SuiteCase,
): Promise<ExecutedWrite[]> {
  const catalog = await toolbox.catalog(ref);
  const writes = new Set(
    [...catalog.all.values()].filter((d) => isWriteTool(d, ref.flow.tools?.[d.name])).map((d) => d.name),
  );
  return unexpectedWrites(events, writes, c.expectedWrites ?? []);
}

async function caseInput(spec: TrialSpec): Promise<Record<string, unknown>> {
  const input = spec.case.input;
  if (typeof input === 'string') return resolveRunInput(spec.flow.flow, { text: input });
  return resolveRunInput(spec.flow.flow, input === undefined ? {} : { json: JSON.stringify(input) });
}

/** Starts the run and answers each suspension by the case's policy until it ends or nothing more is given. */
async function drive(runtime: Runtime, ref: FlowRef, spec: TrialSpec, input: unknown): Promise<RunSummary> {
  let summary = await runtime.start(ref, { input, model: spec.model });
  const answers = [...(spec.case.answers ?? [])];
  let approvals = 0;
  for (let i = 0; i < MAX_RESPONSES && summary.status === 'suspended' && summary.suspension; i += 1) {
    const { kind, pending } = summary.suspension;
    if (kind === 'FOLLOW_UP') {
      const answer = answers.shift();
      if (answer === undefined) break;
      summary = await runtime.answer(summary.runId, answer, { who: 'eval' });
      continue;
    }
    const decision = await decide(spec.case.approvals, pending, approvals);
    approvals += 1;
    if (decision === null) break;
    const options = { who: 'eval', comment: null };
    summary =
      decision === 'approve'
        ? await runtime.approve(summary.runId, options)
        : await runtime.reject(summary.runId, options);
  }
  return summary;
}

/** The decision on the `index`-th approval: null (leave the run suspended) when a list has run out. */
async function decide(
  policy: ApprovalPolicy | undefined,
  pending: unknown,
  index: number,
): Promise<'approve' | 'reject' | null> {
  if (policy === undefined || policy === 'approve') return 'approve';
  if (policy === 'reject') return 'reject';
  if (Array.isArray(policy)) return policy[index] ?? null;
  return (await evaluateCondition(policy.when, pending)) ? 'approve' : 'reject';
}

async function collect(runtime: Runtime, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of runtime.events(runId, { follow: false })) events.push(event);
  return events;
}

/** Calls each tool directly (no guards): the problems of calls that failed or whose result broke `expect`. */
async function callAll(
  toolbox: DefaultToolbox,
  ref: FlowRef,
  calls: readonly { tool: string; args?: Record<string, unknown> | undefined; expect?: unknown }[],
  what: 'setup' | 'verify',
): Promise<string[]> {
  if (calls.length === 0) return [];
  const catalog = await toolbox.catalog(ref);
  const problems: string[] = [];
  for (const call of calls) {
    const tool = catalog.all.get(call.tool);
    if (!tool) throw new EvalSuiteError(`${what} tool ${call.tool} is not a tool of flow ${ref.flow.id}`);
    const obs = await catalog.invoker.invoke(tool, call.args ?? {}, {
      timeoutMs: ref.flow.limits.toolTimeoutMs,
      locale: ref.flow.locale,
    });
    if (!obs.ok) {
      problems.push(`${what} ${call.tool}: ${obs.outcome.name} ${obs.message(ref.flow.locale)}`);
      continue;
    }
    const expect = (call as { expect?: Parameters<typeof valueProblems>[0] }).expect;
    if (expect)
      for (const p of await valueProblems(expect, obs.data, obs.data))
        problems.push(`${what} ${call.tool}: ${p}`);
  }
  return problems;
}

function failedEarly(problems: string[], started: number): TrialResult {
  return {
    runId: null,
    status: 'not started',
    passed: false,
    problems,
    reply: null,
    metrics: traceMetrics([], { tools: {} }),
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    latencyMs: Date.now() - started,
    trace: null,
  };
}

/** A model client's name for the report: its spec string, or the client's id. */
export function modelName(model: ModelSpec): string {
  if (typeof model === 'string') return model;
  return (model as ModelClient).id ?? 'model';
}
