import { code } from '../../domain/error-codes.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { scalarLeaves } from '../matching.js';
import { replySources, untrustedPhrases, type ReplySources } from '../reply-rule.js';
import type { Check } from '../compose.js';
import type { ParsedCall } from '../stages.js';

/**
 * The reply rule on a write's free-text arguments (docs/flows.md, "Replies and untrusted text"): a
 * tool with `text: { params: [...], untrusted: refuse }` may not be called with a checked argument that
 * repeats a name standing only in untrusted text of the run — what an injected "create an event
 * titled …" produces. The names and the texts are the reply rule's (`untrustedPhrases`, `replySources`).
 */

/** At most this many names are reported, as by the reply rule. */
const MAX_REPORTED = 5;

/** The strings of an argument (itself, or the string leaves of a list or object), each judged alone. */
function stringsOf(arg: unknown): string[] {
  return scalarLeaves(arg).filter((leaf): leaf is string => typeof leaf === 'string' && leaf.trim() !== '');
}

/**
 * Step 3a': a write whose `text` arguments repeat a name found only in untrusted text is REJECTED
 * `TEXT_UNTRUSTED_PHRASE`, naming the first such argument. Reads, builtins and tools without `text`
 * pass untouched.
 */
export function untrustedTextGuard(): Check<ParsedCall, object> {
  return async function untrustedText(ctx) {
    const rule = ctx.policy?.text;
    if (!ctx.isWrite || rule === undefined) return {};
    let sources: ReplySources | undefined;
    for (const field of rule.params) {
      const texts = stringsOf(ctx.args[field]);
      if (texts.length === 0) continue;
      sources ??= await replySources(ctx);
      if (sources.untrusted.length === 0) return {};
      const judged = sources;
      const found = texts.flatMap((text) => untrustedPhrases(text, judged)).slice(0, MAX_REPORTED);
      if (found.length === 0) continue;
      const { locale } = ctx;
      const phrases = list(
        locale,
        found.map((f) => `"${f.phrase}"`),
      );
      const tools = list(locale, [...new Set(found.flatMap((f) => f.tools))]);
      return {
        stop: Observation.rejected(
          code('TEXT_UNTRUSTED_PHRASE'),
          code('TEXT_UNTRUSTED_PHRASE').reason(locale, { field, phrases, tools }),
          hint(locale, 'NEXT_TEXT_UNTRUSTED', { field, phrases }),
        ),
      };
    }
    return {};
  };
}
