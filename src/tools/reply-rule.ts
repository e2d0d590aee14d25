import { toolTrust } from '../domain/tool.js';
import { evaluate, ExpressionError } from './expressions.js';
import { flowNodeOf } from './context.js';
import { redact, textsOf } from './guards/untrusted.js';
import { userTexts } from '../records/run-state.js';
import type { CallInput, CallServices } from './call.js';

/**
 * The reply rule (docs/flows.md, "Replies and untrusted text"): a node with `reply: { untrusted:
 * refuse }` may not end on a reply that repeats a name standing only in untrusted text — what an
 * injected "say that …" produces. A name is a run of two or more capitalised words (see `namesIn`).
 */

/** What the reply rule reads of a call's context (a text answer has no call of its own). */
export type ReplyContext = Pick<CallInput, 'run' | 'tools' | 'flow' | 'nodeId' | 'locale'> & {
  readonly services: Pick<CallServices, 'logger'>;
};

/** The texts a reply is judged against. */
export interface ReplySources {
  /** Untrusted text of the run's results, with the tool each came from. */
  readonly untrusted: readonly { readonly tool: string; readonly text: string }[];
  /** Everything else the reply may repeat: trusted results, the user's words, the node's instructions. */
  readonly trusted: readonly string[];
}

/** A phrase of a reply that stands only in untrusted text, with the tools whose results hold it. */
export interface UntrustedPhrase {
  readonly phrase: string;
  readonly tools: readonly string[];
}

/** The longest names looked at: a run of more words is judged by its parts of up to this many. */
const MAX_NAME_WORDS = 8;
/** At most this many phrases are reported (the first ones in the reply). */
const MAX_REPORTED = 5;

const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}'’&-]*/gu;
const CAPITALISED = /^\p{Lu}/u;
/** What may stand between two words of one name: spaces or tabs only (no punctuation, no line break). */
const GAP = /^[ \t\u00a0]+$/;

/**
 * The names of `text` and their parts: every run of 2 to 8 consecutive capitalised words (a word
 * starting with an upper-case letter; words of one name are separated by spaces only, so a comma, a
 * full stop or a line break ends a name). `Visit Riverside View Hotel` gives `Visit Riverside`,
 * `Riverside View`, `View Hotel`, `Visit Riverside View`, … and the whole run.
 */
export function namesIn(text: string): string[] {
  const runs: string[][] = [];
  let run: string[] = [];
  let end = -1;
  for (const m of text.matchAll(TOKEN)) {
    const word = m[0];
    const joined = run.length > 0 && GAP.test(text.slice(end, m.index));
    if (!CAPITALISED.test(word)) {
      if (run.length > 1) runs.push(run);
      run = [];
    } else if (joined) run.push(word);
    else {
      if (run.length > 1) runs.push(run);
      run = [word];
    }
    end = m.index + word.length;
  }
  if (run.length > 1) runs.push(run);
  const names = new Set<string>();
  for (const words of runs)
    for (let size = 2; size <= Math.min(words.length, MAX_NAME_WORDS); size += 1)
      for (let i = 0; i + size <= words.length; i += 1) names.add(words.slice(i, i + size).join(' '));
  return [...names];
}

/** `text` with every run of white space made one space. */
function spaced(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** True when `phrase` stands in `text` as whole words (no letter or digit right before or after). */
export function standsIn(text: string, phrase: string): boolean {
  for (let at = text.indexOf(phrase); at !== -1; at = text.indexOf(phrase, at + 1)) {
    const before = text[at - 1];
    const after = text[at + phrase.length];
    const edge = (ch: string | undefined): boolean => ch === undefined || !/[\p{L}\p{N}]/u.test(ch);
    if (edge(before) && edge(after)) return true;
  }
  return false;
}

/**
 * The names of `reply` that stand in untrusted text (as written, case and all) and nowhere in the
 * trusted texts (in any case): in the order of the reply, a part left out when a longer name holding
 * it is reported. Empty when the reply repeats nothing of the kind.
 */
export function untrustedPhrases(reply: string, sources: ReplySources): UntrustedPhrase[] {
  const untrusted = sources.untrusted.map((u) => ({ tool: u.tool, text: spaced(u.text) }));
  const trusted = sources.trusted.map((t) => spaced(t).toLowerCase());
  const found: UntrustedPhrase[] = [];
  for (const phrase of namesIn(spaced(reply))) {
    const tools = [...new Set(untrusted.filter((u) => standsIn(u.text, phrase)).map((u) => u.tool))];
    if (tools.length === 0) continue;
    const lower = phrase.toLowerCase();
    if (trusted.some((t) => standsIn(t, lower))) continue;
    found.push({ phrase, tools });
  }
  const longest = found.filter(
    (f) => !found.some((g) => g.phrase !== f.phrase && standsIn(g.phrase, f.phrase)),
  );
  return longest.slice(0, MAX_REPORTED);
}

/**
 * The texts of the run `ctx` belongs to, split by trust: each successful result's untrusted parts
 * (`trust`, or the MCP annotation `openWorldHint`) and the rest of it, the user's words, and the
 * node's instructions.
 */
export async function replySources(ctx: ReplyContext): Promise<ReplySources> {
  const untrusted: { tool: string; text: string }[] = [];
  const trusted: string[] = [...userTexts(ctx.run), flowNodeOf(ctx).instructions];
  for (const evidence of ctx.run.evidence) {
    if (evidence.outcome !== 'SUCCESS') continue;
    const trust = toolTrust(ctx.tools.get(evidence.tool), ctx.flow.tools[evidence.tool]);
    if (trust === 'trusted') {
      trusted.push(...textsOf([evidence.payload]));
      continue;
    }
    const parts =
      trust === 'untrusted'
        ? [evidence.payload]
        : await Promise.all(trust.untrusted.map((path) => select(ctx, path, evidence.payload)));
    for (const text of textsOf(parts)) untrusted.push({ tool: evidence.tool, text });
    if (trust !== 'untrusted') trusted.push(...textsOf([redact(evidence.payload, parts)]));
  }
  return { untrusted, trusted };
}

async function select(ctx: ReplyContext, path: string, payload: unknown): Promise<unknown> {
  try {
    return await evaluate(path, payload);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    ctx.services.logger.warn('TOOL trust path failed', { error: error.message });
    return undefined;
  }
}
