import { resolve } from 'node:path';
import { loadFlow } from '../flow/load.js';
import { absolutizeModel } from '../model/resolve.js';
import { DRIVING, UsageError, parse, str } from './args.js';
import { cliContext } from './context.js';
import { loadExtensions, toolNames } from './extensions.js';
import { askInline } from './interactive.js';
import { describeSummary, exitCodeFor } from './render.js';

/**
 * `fork RUN_ID --at SEQ [--model M] [--flow F]` (docs/evals.md, "Fork"): a new run continuing from
 * event SEQ of the run, driven like `run` (exit codes as `run`; 2 when SEQ is not a fork point, with
 * the nearest ones named).
 */
export async function fork(argv: string[]): Promise<number> {
  const parsed = parse(
    'fork',
    argv,
    { ...DRIVING, at: { type: 'string' }, flow: { type: 'string' } },
    { min: 1, max: 1, names: 'RUN_ID' },
  );
  const runId = parsed.positionals[0] as string;
  const rawAt = str(parsed, 'at');
  if (rawAt === undefined)
    throw new UsageError('fork: --at SEQ is required (the event to continue after; see `trace RUN_ID`)');
  const at = Number(rawAt);
  if (!Number.isInteger(at) || at < 1)
    throw new UsageError(`fork: --at must be an event seq (1, 2, …), not ${JSON.stringify(rawAt)}`);
  const model = str(parsed, 'model');
  const flowFile = str(parsed, 'flow');
  const extensions = await loadExtensions(parsed);
  const flow =
    flowFile === undefined
      ? undefined
      : await loadFlow(resolve(flowFile), { knownTools: toolNames(extensions) });
  const ctx = cliContext(parsed, extensions);
  try {
    const first = await ctx.runtime.fork(runId, {
      at,
      ...(model !== undefined ? { model: absolutizeModel(model, process.cwd()) } : {}),
      ...(flow ? { flow } : {}),
    });
    const summary =
      ctx.interactive && first.status === 'suspended' ? await askInline(ctx.runtime, first, ctx.err) : first;
    if (ctx.json) ctx.out(`${JSON.stringify(summary)}\n`);
    if (!ctx.json || summary.status === 'suspended')
      ctx.err(`${describeSummary(summary, ctx.continueFlags, ctx.continueCommand)}\n`);
    return exitCodeFor(summary.status);
  } finally {
    ctx.renderer?.stopSpinner();
    await ctx.runtime.close();
  }
}
