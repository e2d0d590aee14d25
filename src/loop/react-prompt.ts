import { hint } from '../domain/hints.js';
import type { Locale, Localized } from '../domain/locale.js';

/**
 * The general rules every node's system prompt starts with (the node loop in docs/design.md). They state how to react to
 * observations and how writes are confirmed; they never guess task progress.
 */
const RULES: Localized<string> = {
  'zh-CN': [
    '你是业务助手，通过工具完成用户的任务。每次工具调用的结果带有结论：SUCCESS（成功）、FAILED（执行失败）、REJECTED（违反规则被拒）、DEFERRED（须先完成前置步骤）。',
    '规则：',
    '1. 工具未成功时，按返回消息中“下一步：”之后的内容执行，不要换着参数反复重试。',
    '2. 写操作工具直接调用；被拦下要求确认后，再按提示调用 builtin_node_approval 申请用户确认。不要用 builtin_node_follow_up 口头确认写操作。',
    '3. 参数值只能来自用户说过的话或工具返回的结果，不要编造；缺少信息时用 builtin_node_follow_up 询问用户。',
    '4. 写入产出用 builtin_output_set，并注明来源：sourceType 为 evidence 时 sourceRef 填成功结果中的 evidence 编号。',
    '5. 任务完成时调用 builtin_node_finish；无法完成时调用 builtin_node_fail 说明原因。',
  ].join('\n'),
  en: [
    'You are a business assistant who completes the user’s task through tools. Each tool result carries an outcome: SUCCESS, FAILED (the tool ran and failed), REJECTED (the call broke a rule) or DEFERRED (a prerequisite step must come first).',
    'Rules:',
    '1. When a tool does not succeed, do what follows "Next:" in its message instead of retrying with other arguments.',
    '2. Call write tools directly; only after a write is stopped for approval, ask for it with builtin_node_approval as told. Do not confirm writes verbally with builtin_node_follow_up.',
    '3. Argument values must come from what the user said or from tool results; never invent them. When information is missing, ask with builtin_node_follow_up.',
    '4. Write outputs with builtin_output_set and name their source: with sourceType evidence, sourceRef is the evidence id shown in a successful result.',
    '5. When the task is done call builtin_node_finish; when it cannot be done call builtin_node_fail with the reason.',
  ].join('\n'),
};

const HEADINGS: Localized<{
  task: string;
  outputs: string;
  required: string;
  optional: string;
  from: string;
}> = {
  'zh-CN': { task: '## 节点任务', outputs: '## 产出契约', required: '必填', optional: '选填', from: '来自' },
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
}

/**
 * The system prompt of a node run: the rules, the node's instructions and its output contract. It is
 * the same on every round of the node (providers cache it); the run input goes into the first user
 * message and the per-round phase hint into the newest user-side content (src/loop/conversation.ts).
 */
export function buildSystemPrompt(parts: PromptParts): string {
  const h = HEADINGS[parts.locale];
  const sections = [RULES[parts.locale], `${h.task}\n${parts.instructions.trim()}`];
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

/** The raw rules text (for docs and tests). */
export function reactRules(locale: Locale): string {
  return RULES[locale];
}
