import type { ElicitationPending } from '../tools/call.js';
import { visible } from './visible.js';

/** What the person typed for a server's question: the action and the answer text (`runtime.answer`). */
export interface PromptedAnswer {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly text: string;
}

type Ask = (prompt: string) => Promise<string>;

/**
 * Asks an MCP server's question in the terminal (docs/mcp.md, "Elicitation"): a link is shown and
 * confirmed; a form is asked field by field (an empty line keeps the default or leaves the field out),
 * and the fields go to the server as a JSON object, checked against its schema by `answer`.
 */
export async function promptElicitation(
  pending: ElicitationPending,
  ask: Ask,
  err: (text: string) => void,
): Promise<PromptedAnswer> {
  err(
    `\nMCP server ${visible(pending.server)} asks (during ${visible(pending.tool)}): ${visible(pending.message)}\n`,
  );
  if (pending.mode === 'url') {
    err(`  open: ${visible(pending.url ?? '')}\n`);
    const done = choice(await ask('Done? [y]es / [d]ecline / [c]ancel: '));
    return { action: done, text: done === 'accept' ? 'done' : '' };
  }
  const start = choice(await ask('Answer the form? [y]es / [d]ecline / [c]ancel: '));
  if (start !== 'accept') return { action: start, text: '' };
  const properties = (pending.requestedSchema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((pending.requestedSchema?.required as string[] | undefined) ?? []);
  const content: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    const label = typeof property.title === 'string' ? property.title : key;
    const about = typeof property.description === 'string' ? ` — ${property.description}` : '';
    const choices = optionsOf(property);
    if (choices.length > 0) err(`  ${visible(label)}: ${choices.map((c) => visible(c)).join(' | ')}\n`);
    const fallback = 'default' in property ? ` [${JSON.stringify(property.default)}]` : '';
    const mark = required.has(key) ? ' *' : '';
    const typed = (await ask(`  ${visible(label)}${mark}${visible(about)}${fallback}: `)).trim();
    if (typed === '') continue;
    content[key] = valueOf(property, typed);
  }
  return { action: 'accept', text: JSON.stringify(content) };
}

function choice(typed: string): 'accept' | 'decline' | 'cancel' {
  const t = typed.trim().toLowerCase();
  if (t.startsWith('d')) return 'decline';
  if (t.startsWith('c')) return 'cancel';
  return 'accept';
}

/** The values an enum field offers (plain `enum`, or `oneOf`/`anyOf` of `const`). */
function optionsOf(property: Record<string, unknown>): string[] {
  const items = (property.items ?? {}) as Record<string, unknown>;
  const source = property.type === 'array' ? items : property;
  if (Array.isArray(source.enum)) return source.enum.map(String);
  const alternatives = (source.oneOf ?? source.anyOf) as { const?: unknown }[] | undefined;
  return Array.isArray(alternatives) ? alternatives.map((a) => String(a.const)) : [];
}

/** A typed line as the field's type: numbers, booleans (y/n), lists (comma-separated), else text. */
function valueOf(property: Record<string, unknown>, typed: string): unknown {
  switch (property.type) {
    case 'integer':
    case 'number': {
      const n = Number(typed);
      return Number.isFinite(n) ? n : typed;
    }
    case 'boolean':
      return /^(y|yes|true|1)$/i.test(typed) ? true : /^(n|no|false|0)$/i.test(typed) ? false : typed;
    case 'array':
      return typed
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    default:
      return typed;
  }
}
