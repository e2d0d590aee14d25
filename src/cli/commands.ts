import { resolve } from 'node:path';
import { loadFlow } from '../flow/load.js';
import { resolveRunInput } from '../flow/input.js';
import { absolutizeModel } from '../model/resolve.js';
import type { RunSummary } from '../records/summary.js';
import type { RunStatus } from '../store/store.js';
import { COMMON, DRIVING, UsageError, parse, str, type Parsed } from './args.js';
import { builtinNames, loadExtensions, toolNames, type Extensions } from './extensions.js';
import { cliContext, type CliContext } from './context.js';
import { askInline } from './interactive.js';
import { preflight } from './preflight.js';
import { describeSummary, exitCodeFor, runsTable } from './render.js';
import { jsonLine } from './visible.js';
import { onInterrupt, type Interrupt } from './interrupt.js';

/** A command: parses its own arguments and returns the process exit code. */
export type Command = (argv: string[]) => Promise<number>;

/** `withContext` option of the commands that drive a run (Ctrl-C stops them cleanly). */
const DRIVES = { driving: true } as const;

const STATUSES: RunStatus[] = ['running', 'suspended', 'completed', 'failed', 'cancelled'];

/** `run FLOW --input TEXT | --input-json JSON|@file [--thread ID]`. */
export const run: Command = async (argv) => {
  const parsed = parse(
    'run',
    argv,
    { ...DRIVING, input: { type: 'string' }, 'input-json': { type: 'string' }, thread: { type: 'string' } },
    { min: 1, max: 1, names: 'FLOW.yaml' },
  );
  const file = parsed.positionals[0] as string;
  const extensions = await loadExtensions(parsed);
  const loaded = await loadFlow(resolve(file), { knownTools: toolNames(extensions) });
  const input = await resolveRunInput(loaded.flow, {
    text: str(parsed, 'input'),
    json: str(parsed, 'input-json'),
  });
  const cliModel = str(parsed, 'model');
  const model =
    cliModel !== undefined
      ? absolutizeModel(cliModel, process.cwd())
      : flowModel(loaded.flow.model, loaded.dir);
  const thread = str(parsed, 'thread');
  if (thread === '') throw new UsageError('run: --thread needs a thread id');
  const options = {
    input,
    ...(model ? { model } : {}),
    // The OS user started the run (not one of several approvers, docs/approvals.md).
    ...(thread !== undefined ? { thread } : {}),
    ...(process.env.USER ? { who: process.env.USER } : {}),
  };
  // What `validate` refuses never becomes a run: checked before the store is opened.
  await preflight(resolve(file), loaded, model, toolNames(extensions), builtinNames(extensions));
  return withContext(
    parsed,
    async (ctx) => {
      ctx.flowFile = file;
      return finish(ctx, await ctx.runtime.start(loaded, options));
    },
    { ...DRIVES, extensions },
  );
};

/** `approve RUN_ID` / `reject RUN_ID` with an optional comment. */
export function decide(decision: 'approve' | 'reject'): Command {
  return async (argv) => {
    const parsed = parse(
      decision,
      argv,
      { ...DRIVING, comment: { type: 'string' }, ...EXPECT, ...(decision === 'approve' ? ARGS : {}) },
      { min: 1, max: 1, names: 'RUN_ID' },
    );
    const runId = parsed.positionals[0] as string;
    const options = {
      comment: str(parsed, 'comment') ?? null,
      who: process.env.USER ?? null,
      ...modelOption(parsed),
      ...expectOption(decision, parsed),
      ...argsOption(parsed),
    };
    return withContext(
      parsed,
      async (ctx) =>
        finish(
          ctx,
          decision === 'approve'
            ? await ctx.runtime.approve(runId, options)
            : await ctx.runtime.reject(runId, options),
        ),
      DRIVES,
    );
  };
}

/** `answer RUN_ID TEXT`, or `answer RUN_ID --decline|--cancel` (an MCP server's question). */
export const answer: Command = async (argv) => {
  const parsed = parse(
    'answer',
    argv,
    { ...DRIVING, ...EXPECT, decline: { type: 'boolean' }, cancel: { type: 'boolean' } },
    { min: 1, max: 2, names: 'RUN_ID and TEXT' },
  );
  const [runId, text] = parsed.positionals as [string, string | undefined];
  const action = answerAction(parsed, text);
  return withContext(
    parsed,
    async (ctx) =>
      finish(
        ctx,
        await ctx.runtime.answer(runId, text ?? '', {
          who: process.env.USER ?? null,
          ...modelOption(parsed),
          ...expectOption('answer', parsed),
          ...(action ? { action } : {}),
        }),
      ),
    DRIVES,
  );
};

/** `--decline` / `--cancel` of `answer` (an MCP server's question), which take no TEXT. */
function answerAction(parsed: Parsed, text: string | undefined): 'decline' | 'cancel' | undefined {
  const decline = parsed.values.decline === true;
  const cancel = parsed.values.cancel === true;
  if (decline && cancel) throw new UsageError('answer takes --decline or --cancel, not both');
  const action = decline ? 'decline' : cancel ? 'cancel' : undefined;
  if (action && text !== undefined) throw new UsageError(`answer --${action} takes no TEXT`);
  if (!action && text === undefined)
    throw new UsageError('answer: missing RUN_ID and TEXT (or --decline, --cancel)');
  return action;
}

/** `resume RUN_ID`. */
export const resume: Command = async (argv) => {
  const parsed = parse('resume', argv, DRIVING, { min: 1, max: 1, names: 'RUN_ID' });
  const runId = parsed.positionals[0] as string;
  return withContext(
    parsed,
    async (ctx) => finish(ctx, await ctx.runtime.resume(runId, modelOption(parsed))),
    DRIVES,
  );
};

/** `retry RUN_ID [--model M]`: takes a failed run up again in its failed node (exit codes as `resume`; 4 if not failed). */
export const retry: Command = async (argv) => {
  const parsed = parse('retry', argv, DRIVING, { min: 1, max: 1, names: 'RUN_ID' });
  const runId = parsed.positionals[0] as string;
  return withContext(
    parsed,
    async (ctx) =>
      finish(ctx, await ctx.runtime.retry(runId, { who: process.env.USER ?? null, ...modelOption(parsed) })),
    DRIVES,
  );
};

/** `cancel RUN_ID`. */
export const cancel: Command = async (argv) => {
  const parsed = parse(
    'cancel',
    argv,
    { ...COMMON, trace: { type: 'string' } },
    { min: 1, max: 1, names: 'RUN_ID' },
  );
  const runId = parsed.positionals[0] as string;
  return withContext(parsed, async (ctx) => {
    const summary = await ctx.runtime.cancel(runId);
    print(ctx, summary);
    return 0;
  });
};

/** `status RUN_ID`. */
export const status: Command = async (argv) => {
  const parsed = parse('status', argv, COMMON, { min: 1, max: 1, names: 'RUN_ID' });
  return withContext(parsed, async (ctx) => {
    const summary = await ctx.runtime.status(parsed.positionals[0] as string);
    print(ctx, summary);
    return exitCodeFor(summary.status);
  });
};

/** `runs [--status S]`. */
export const runs: Command = async (argv) => {
  const parsed = parse(
    'runs',
    argv,
    { ...COMMON, status: { type: 'string' } },
    { min: 0, max: 0, names: '' },
  );
  const wanted = str(parsed, 'status');
  if (wanted !== undefined && !STATUSES.includes(wanted as RunStatus)) {
    throw new UsageError(
      `runs: --status must be one of ${STATUSES.join(', ')}, not ${JSON.stringify(wanted)}`,
    );
  }
  return withContext(parsed, async (ctx) => {
    const list = await ctx.runtime.list(wanted ? { status: wanted as RunStatus } : {});
    if (ctx.json) ctx.out(jsonLine(list));
    else ctx.out(runsTable(list));
    return 0;
  });
};

/** `trace RUN_ID`. */
export const trace: Command = async (argv) => {
  const parsed = parse('trace', argv, COMMON, { min: 1, max: 1, names: 'RUN_ID' });
  const runId = parsed.positionals[0] as string;
  return withContext(parsed, async (ctx) => {
    await ctx.runtime.status(runId);
    for await (const event of ctx.runtime.events(runId, { follow: false })) {
      if (ctx.json) ctx.out(jsonLine(event));
      else ctx.renderer?.onEvent(event);
    }
    return 0;
  });
};

async function withContext(
  parsed: Parsed,
  body: (ctx: CliContext) => Promise<number>,
  options: { driving?: boolean; extensions?: Extensions } = {},
): Promise<number> {
  const ctx = cliContext(parsed, options.extensions ?? (await loadExtensions(parsed)));
  // A command that drives a run: Ctrl-C stops driving cleanly (src/cli/interrupt.ts), and the command
  // then prints where the run stands.
  const interrupt = options.driving ? onInterrupt(() => ctx.runtime.stopDriving(), ctx.err) : null;
  if (interrupt) interrupts.set(ctx, interrupt);
  try {
    return await body(ctx);
  } finally {
    interrupt?.dispose();
    ctx.progress.flush();
    await ctx.runtime.close();
  }
}

const interrupts = new WeakMap<CliContext, Interrupt>();

async function finish(ctx: CliContext, given: RunSummary): Promise<number> {
  // A run waiting for an MCP task is waited for here (Ctrl-C leaves it waiting, for `resume` anywhere).
  const first =
    given.status === 'suspended' && given.suspension?.kind === 'TASK'
      ? await ctx.runtime.awaitTask(given.runId)
      : given;
  if (interrupts.get(ctx)?.interrupted === true && first.status === 'running') {
    print(ctx, first);
    ctx.err(`continue with: ${ctx.continueCommand} resume ${first.runId}${ctx.continueFlags}\n`);
    return 130;
  }
  const summary =
    ctx.interactive && first.status === 'suspended' ? await askInline(ctx.runtime, first, ctx.err) : first;
  print(ctx, summary);
  return exitCodeFor(summary.status);
}

function print(ctx: CliContext, summary: RunSummary): void {
  if (ctx.json) ctx.out(jsonLine(summary));
  else ctx.err(`${describeSummary(summary, ctx.continueFlags, ctx.continueCommand, ctx.flowFile)}\n`);
  if (ctx.json && summary.status === 'suspended')
    ctx.err(`${describeSummary(summary, ctx.continueFlags, ctx.continueCommand, ctx.flowFile)}\n`);
}

/** `--expect ID` of approve/reject/answer: the pending item the response is for (exit 4 when another waits). */
const EXPECT = { expect: { type: 'string' } } as const;

function expectOption(command: string, parsed: Parsed): { expect?: string } {
  const id = str(parsed, 'expect');
  if (id === '')
    throw new UsageError(`${command}: --expect needs the pending item id (see \`status RUN_ID --json\`)`);
  return id !== undefined ? { expect: id } : {};
}

/** `--args JSON` of approve: the edited arguments of the pending write (docs/approvals.md). */
const ARGS = { args: { type: 'string' } } as const;

function argsOption(parsed: Parsed): { args?: Record<string, unknown> } {
  const text = str(parsed, 'args');
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`approve: --args is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('approve: --args must be a JSON object of the arguments, e.g. {"amount": 50}');
  return { args: value as Record<string, unknown> };
}

function modelOption(parsed: Parsed): { model?: string } {
  const model = str(parsed, 'model');
  return model === undefined ? {} : { model: absolutizeModel(model, process.cwd()) };
}

function flowModel(model: string | undefined, dir: string | null): string | undefined {
  if (model === undefined) return undefined;
  return absolutizeModel(model, dir ?? process.cwd());
}
