import { COMMON, parse } from './args.js';
import { cliContext } from './context.js';
import { loadExtensions } from './extensions.js';
import { jsonLine } from './visible.js';

/**
 * `say RUN_ID TEXT`: a steering message to a running or suspended run (docs/approvals.md, "Steering"),
 * kept in the store at once; the run reads it at its next model round, in whatever process drives it.
 * Prints the kept message (`--json`: as one JSON line on stdout); exit 4 when the run has ended or
 * enough messages already wait, 2 for an unknown run or a text that is empty or too long.
 */
export async function say(argv: string[]): Promise<number> {
  const parsed = parse('say', argv, COMMON, { min: 2, max: 2, names: 'RUN_ID and TEXT' });
  const [runId, text] = parsed.positionals as [string, string];
  const ctx = cliContext(parsed, await loadExtensions(parsed));
  try {
    const message = await ctx.runtime.say(runId, text, { who: process.env.USER ?? null });
    if (ctx.json) ctx.out(jsonLine(message));
    else
      ctx.err(
        `message ${message.seq} (${message.messageId}) kept for run ${runId}: the run reads it at its next model round\n`,
      );
    return 0;
  } finally {
    ctx.progress.flush();
    await ctx.runtime.close();
  }
}
