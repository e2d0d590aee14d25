import { resolve } from 'node:path';
import { loadFlow } from '../flow/load.js';
import { resolveRunInput } from '../flow/input.js';
import { absolutizeModel } from '../model/resolve.js';
import type { RunSummary } from '../runtime/summary.js';
import type { RunStatus } from '../store/store.js';
import { COMMON, DRIVING, UsageError, parse, str, type Parsed } from './args.js';
import { cliContext, type CliContext } from './context.js';
import { askInline } from './interactive.js';
import { preflight } from './preflight.js';
import { describeSummary, exitCodeFor, runsTable } from './render.js';
import { jsonLine } from './visible.js';

/** A command: parses its own arguments and returns the process exit code. */
export type Command = (argv: string[]) => Promise<number>;

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
  const loaded = await loadFlow(resolve(file));
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
    ...(thread !== undefined ? { thread, who: process.env.USER ?? null } : {}),
  };
  // What `validate` refuses never becomes a run: checked before the store is opened.
  await preflight(resolve(file), loaded, model);
  return withContext(parsed, async (ctx) => finish(ctx, await ctx.runtime.start(loaded, options)));
};

/** `approve RUN_ID` / `reject RUN_ID` with an optional comment. */
export function decide(decision: 'approve' | 'reject'): Command {
  return async (argv) => {
    const parsed = parse(
      decision,
      argv,
      { ...DRIVING, comment: { type: 'string' }, ...EXPECT },
      { min: 1, max: 1, names: 'RUN_ID' },
    );
    const runId = parsed.positionals[0] as string;
    const options = {
      comment: str(parsed, 'comment') ?? null,
      who: process.env.USER ?? null,
      ...modelOption(parsed),
      ...expectOption(parsed),
    };
    return withContext(parsed, async (ctx) =>
      finish(
        ctx,
        decision === 'approve'
          ? await ctx.runtime.approve(runId, options)
          : await ctx.runtime.reject(runId, options),
      ),
    );
  };
}

/** `answer RUN_ID TEXT`. */
export const answer: Command = async (argv) => {
  const parsed = parse(
    'answer',
    argv,
    { ...DRIVING, ...EXPECT },
    { min: 2, max: 2, names: 'RUN_ID and TEXT' },
  );
  const [runId, text] = parsed.positionals as [string, string];
  return withContext(parsed, async (ctx) =>
    finish(
      ctx,
      await ctx.runtime.answer(runId, text, {
        who: process.env.USER ?? null,
        ...modelOption(parsed),
        ...expectOption(parsed),
      }),
    ),
  );
};

/** `resume RUN_ID`. */
export const resume: Command = async (argv) => {
  const parsed = parse('resume', argv, DRIVING, { min: 1, max: 1, names: 'RUN_ID' });
  const runId = parsed.positionals[0] as string;
  return withContext(parsed, async (ctx) =>
    finish(ctx, await ctx.runtime.resume(runId, modelOption(parsed))),
  );
};

/** `retry RUN_ID [--model M]`: takes a failed run up again in its failed node (exit codes as `resume`; 4 if not failed). */
export const retry: Command = async (argv) => {
  const parsed = parse('retry', argv, DRIVING, { min: 1, max: 1, names: 'RUN_ID' });
  const runId = parsed.positionals[0] as string;
  return withContext(parsed, async (ctx) =>
    finish(ctx, await ctx.runtime.retry(runId, { who: process.env.USER ?? null, ...modelOption(parsed) })),
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

async function withContext(parsed: Parsed, body: (ctx: CliContext) => Promise<number>): Promise<number> {
  const ctx = cliContext(parsed);
  try {
    return await body(ctx);
  } finally {
    ctx.progress.flush();
    await ctx.runtime.close();
  }
}

async function finish(ctx: CliContext, first: RunSummary): Promise<number> {
  const summary =
    ctx.interactive && first.status === 'suspended' ? await askInline(ctx.runtime, first, ctx.err) : first;
  print(ctx, summary);
  return exitCodeFor(summary.status);
}

function print(ctx: CliContext, summary: RunSummary): void {
  if (ctx.json) ctx.out(jsonLine(summary));
  else ctx.err(`${describeSummary(summary, ctx.continueFlags, ctx.continueCommand)}\n`);
  if (ctx.json && summary.status === 'suspended')
    ctx.err(`${describeSummary(summary, ctx.continueFlags, ctx.continueCommand)}\n`);
}

/** `--expect ID` of approve/reject/answer: the pending item the response is for (exit 4 when another waits). */
const EXPECT = { expect: { type: 'string' } } as const;

function expectOption(parsed: Parsed): { expect?: string } {
  const id = str(parsed, 'expect');
  if (id === '') throw new UsageError('--expect needs the pending item id (see `status RUN_ID --json`)');
  return id !== undefined ? { expect: id } : {};
}

function modelOption(parsed: Parsed): { model?: string } {
  const model = str(parsed, 'model');
  return model === undefined ? {} : { model: absolutizeModel(model, process.cwd()) };
}

function flowModel(model: string | undefined, dir: string | null): string | undefined {
  if (model === undefined) return undefined;
  return absolutizeModel(model, dir ?? process.cwd());
}
