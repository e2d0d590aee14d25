import { createInterface, type Interface } from 'node:readline';
import type { Runtime } from '../runtime/runtime.js';
import type { RunSummary } from '../records/summary.js';
import { visible, visibleDeep } from './visible.js';
import type { ElicitationPending } from '../tools/call.js';
import { promptElicitation } from './elicit-prompt.js';
import { RunError } from '../domain/run-error.js';

/**
 * Asks a suspended run's approval or follow-up question in the terminal and continues the run,
 * until it no longer waits for a person. Shows the exact tool and arguments being approved.
 */
export async function askInline(
  runtime: Runtime,
  first: RunSummary,
  err: (text: string) => void,
): Promise<RunSummary> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const ask = lineReader(rl, err);
  let summary = first;
  let refused = 0;
  try {
    while (summary.status === 'suspended' && summary.suspension) {
      const raw = summary.suspension.pending as Record<string, unknown>;
      // Shown with control characters made visible; an option picked by number is answered as it was offered.
      const pending = visibleDeep(raw);
      // A server to authorize is not a question to answer here: the summary says how (mcp login).
      if (raw.authorization) break;
      if (summary.suspension.kind === 'APPROVAL') {
        err(approvalText(pending));
        const yes = /^y(es)?$/i.test((await ask('Approve? [y/N] ')).trim());
        const comment = (await ask('Comment (optional): ')).trim() || null;
        summary = yes
          ? await runtime.approve(summary.runId, { comment, who: process.env.USER ?? null })
          : await runtime.reject(summary.runId, { comment, who: process.env.USER ?? null });
      } else if (raw.elicitation) {
        const asked = await promptElicitation(raw.elicitation as ElicitationPending, ask, err);
        try {
          summary = await runtime.answer(summary.runId, asked.text, {
            who: process.env.USER ?? null,
            action: asked.action,
          });
        } catch (error) {
          // An answer that does not fit the server's form is asked again; nothing changed.
          if (!(error instanceof RunError && error.code === 'REQUEST_INVALID') || ++refused >= 3) throw error;
          err(`${error.message}\n`);
        }
      } else {
        err(`\nQuestion: ${String(pending.question)}\n`);
        const options = Array.isArray(raw.options) ? (raw.options as string[]) : [];
        options.forEach((o, i) => err(`  ${i + 1}. ${visible(String(o))}\n`));
        const typed = (await ask('Answer: ')).trim();
        const picked = /^\d+$/.test(typed) ? options[Number(typed) - 1] : undefined;
        summary = await runtime.answer(summary.runId, picked ?? typed, { who: process.env.USER ?? null });
      }
    }
  } finally {
    rl.close();
  }
  return summary;
}

/** What a person approves: the exact tool and arguments, the summary, the destructive mark, the provenance. */
export function approvalText(pending: Record<string, unknown>): string {
  const lines = [
    '\nApproval needed — the following call will run exactly as shown:\n',
    `  tool: ${String(pending.tool)}\n  args: ${JSON.stringify(pending.args, null, 2).replace(/\n/g, '\n  ')}\n`,
  ];
  if (typeof pending.summary === 'string' && pending.summary) lines.push(`  summary: ${pending.summary}\n`);
  if (pending.destructive === true) lines.push('  destructive: the server marks this tool destructive\n');
  const provenance = pending.provenance as Record<string, string> | undefined;
  if (provenance && Object.keys(provenance).length)
    lines.push(`  provenance: ${JSON.stringify(provenance)}\n`);
  const said = pending.userProvenance as Record<string, string> | undefined;
  if (said && Object.keys(said).length) lines.push(`  said by the user: ${JSON.stringify(said)}\n`);
  return lines.join('');
}

/**
 * Prompts that read whole lines, keeping lines typed ahead of their prompt (a person may type the
 * approval and the comment at once). A closed input answers empty lines.
 */
export function lineReader(rl: Interface, err: (text: string) => void): (prompt: string) => Promise<string> {
  const typedAhead: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let closed = false;
  rl.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else typedAhead.push(line);
  });
  rl.on('close', () => {
    closed = true;
    for (const next of waiting.splice(0)) next('');
  });
  return (prompt) => {
    err(prompt);
    const line = typedAhead.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (closed) return Promise.resolve('');
    return new Promise((resolve) => waiting.push(resolve));
  };
}
