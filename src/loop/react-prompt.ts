import { hint } from '../domain/hints.js';
import type { Locale, Localized } from '../domain/locale.js';

/** One rule line of the system prompt, in both locales, and the builtin it needs (none: always there). */
interface Rule {
  readonly needs?: string;
  readonly text: Localized<string>;
}

/**
 * The general rules every node's system prompt starts with (the node loop in docs/design.md): how to
 * act on an outcome, where argument values come from, how writes are confirmed and outputs written. A
 * rule about a builtin is there only where that builtin is visible; what a tool's own description says
 * (finish, fail and follow-up say when to call them) is not repeated. They never guess task progress.
 */
const RULES: readonly Rule[] = [
  {
    text: {
      'zh-CN': '工具结果不是 SUCCESS 时，按其中“下一步：”之后的内容执行，不要换参数重试。',
      en: 'Unless a tool result starts with SUCCESS, do what follows "Next:" in it; do not retry with other arguments.',
    },
  },
  {
    text: {
      'zh-CN': '参数值只能来自用户的话或工具结果。',
      en: 'Take argument values only from the user or from tool results.',
    },
  },
  {
    needs: 'builtin_node_approval',
    text: {
      'zh-CN':
        '写工具直接调用；被拦下要求确认后按提示调用 builtin_node_approval。不要用 builtin_node_follow_up 口头确认写操作。',
      en: 'Call write tools directly; when one is stopped for approval, call builtin_node_approval as told. Do not confirm writes with builtin_node_follow_up.',
    },
  },
  {
    needs: 'builtin_output_set',
    text: {
      'zh-CN':
        '用 builtin_output_set 写入产出并注明来源：sourceType 为 evidence 时 sourceRef 填成功结果中的 evidence 编号（如 ev_1）。',
      en: 'Write outputs with builtin_output_set and name their source: with sourceType evidence, sourceRef is the evidence id (e.g. ev_1) of a successful result.',
    },
  },
];

const HEADINGS: Localized<{
  task: string;
  outputs: string;
  required: string;
  optional: string;
  from: string;
}> = {
  'zh-CN': {
    task: '## 节点任务',
    outputs: '## 产出契约',
    required: '必填',
    optional: '选填',
    from: '来自',
  },
  en: {
    task: '## Node task',
    outputs: '## Output contract',
    required: 'required',
    optional: 'optional',
    from: 'from',
  },
};

/** What a node's system prompt is made of. */
export interface PromptParts {
  locale: Locale;
  instructions: string;
  outputs: Record<
    string,
    {
      required: boolean;
      sources: string[];
      from?: string[];
      description?: string;
      schema?: Record<string, unknown>;
    }
  >;
  /** The node's `answer` key: `text` lets a text-only turn end the node (docs/flows.md). */
  answer?: 'text';
  /**
   * The names of the tools visible in the node: a rule about a builtin is stated only when that builtin
   * is among them. Default: every builtin (all rules).
   */
  tools?: Iterable<string>;
}

/**
 * The system prompt of a node run: the rules (those of the builtins in `tools`), the node's instructions
 * and its output contract. It is
 * the same on every round of the node (providers cache it); the run input goes into the first user
 * message and the per-round phase hint into the newest user-side content (src/loop/conversation.ts).
 */
export function buildSystemPrompt(parts: PromptParts): string {
  const h = HEADINGS[parts.locale];
  const sections = [rulesText(parts.locale, parts.tools), `${h.task}\n${parts.instructions.trim()}`];
  const keys = Object.entries(parts.outputs);
  if (keys.length > 0) {
    const lines = keys.map(([key, c]) => {
      const from = c.from?.length ? ` ${h.from} ${c.from.join(', ')}` : '';
      const desc = c.description ? ` — ${c.description}` : '';
      // The value's type, so the model writes it right the first time (docs/flows.md, typed outputs).
      const schema = c.schema ? `; schema: ${JSON.stringify(c.schema)}` : '';
      return `- ${key} (${c.required ? h.required : h.optional}; sourceType: ${c.sources.join(' | ')}${from}${schema})${desc}`;
    });
    sections.push(`${h.outputs}\n${lines.join('\n')}`);
  }
  if (parts.answer === 'text') sections.push(hint(parts.locale, 'PROMPT_ANSWER_TEXT'));
  return sections.join('\n\n');
}

/** The rule lines for a node whose visible tools are `tools` (default: every builtin, so every rule), one per line. */
export function rulesText(locale: Locale, tools?: Iterable<string>): string {
  const names = tools === undefined ? null : new Set(tools);
  return RULES.filter((rule) => rule.needs === undefined || names === null || names.has(rule.needs))
    .map((rule) => `- ${rule.text[locale]}`)
    .join('\n');
}

/** The raw rules text with every rule (for docs and tests). */
export function reactRules(locale: Locale): string {
  return rulesText(locale);
}
