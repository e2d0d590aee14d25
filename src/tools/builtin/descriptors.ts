import type { Locale, Localized } from '../../domain/locale.js';
import type { JsonSchema, ToolDescriptor } from '../tool.js';

/** The names of the builtin tools (docs/observations.md). */
export const BUILTIN_NAMES = [
  'builtin_node_finish',
  'builtin_node_fail',
  'builtin_node_follow_up',
  'builtin_node_approval',
  'builtin_output_set',
  'builtin_node_delegate',
  'builtin_evidence_read',
] as const;

/** A builtin tool name. */
export type BuiltinName = (typeof BUILTIN_NAMES)[number];

/** True for the name of a builtin tool. */
export function isBuiltinName(name: string): name is BuiltinName {
  return (BUILTIN_NAMES as readonly string[]).includes(name);
}

interface PropertyText {
  type: 'string' | 'array' | 'json';
  description: Localized<string>;
}

interface BuiltinText {
  description: Localized<string>;
  properties: Record<string, PropertyText>;
  required: readonly string[];
}

/**
 * The model-facing definitions of the builtins, in both locales. These are tool definitions (like an
 * MCP server's own descriptions), kept beside the tools; hints and reasons stay in src/domain.
 */
const TEXTS: Record<BuiltinName, BuiltinText> = {
  builtin_node_finish: {
    description: {
      'zh-CN': '结束本节点（任务完成）。必填产出须已用 builtin_output_set 写入。',
      en: 'Ends this node as completed. Required outputs must have been written with builtin_output_set.',
    },
    properties: {
      summary: {
        type: 'string',
        description: { 'zh-CN': '完成情况的简短总结', en: 'A short summary of what was done' },
      },
    },
    required: ['summary'],
  },
  builtin_node_fail: {
    description: {
      'zh-CN': '以失败结束本节点，说明无法完成的原因。',
      en: 'Ends this node as failed, with the reason it cannot be done.',
    },
    properties: {
      reason: { type: 'string', description: { 'zh-CN': '失败原因', en: 'Why the node fails' } },
    },
    required: ['reason'],
  },
  builtin_node_follow_up: {
    description: {
      'zh-CN':
        '向用户提问（缺少信息、需要用户选择、或说明失败并询问如何处理），等待回答。不要用它口头确认写操作：写操作直接调用，确认由审批完成。',
      en: 'Asks the user a question (missing information, a choice, or how to go on after a failure) and waits for the answer. Do not use it to confirm writes: call the write tool directly; approval does the confirming.',
    },
    properties: {
      question: { type: 'string', description: { 'zh-CN': '问题', en: 'The question' } },
      options: { type: 'array', description: { 'zh-CN': '可选的候选答案', en: 'Optional answer choices' } },
    },
    required: ['question'],
  },
  builtin_node_approval: {
    description: {
      'zh-CN':
        '为刚被拦下的写操作申请用户确认。只在写工具返回"须经用户确认"后调用，tool 填被拦下的写工具名。',
      en: 'Asks the user to approve the write call that was just stopped. Call it only after a write tool answered that it needs approval; `tool` is that write tool.',
    },
    properties: {
      tool: {
        type: 'string',
        description: { 'zh-CN': '被拦下的写工具名', en: 'The name of the stopped write tool' },
      },
      summary: {
        type: 'string',
        description: { 'zh-CN': '向用户说明这次写操作要做什么', en: 'What the write will do, for the user' },
      },
    },
    required: ['tool', 'summary'],
  },
  builtin_output_set: {
    description: {
      'zh-CN':
        '写入本节点的一项产出，并注明来源：evidence（sourceRef 填证据编号，如 ev_1）、user（用户说过的值）、node（sourceRef 填 <节点id>.<键>）、model（自由文本，仅在契约接受时）。',
      en: 'Writes one output of this node with its source: evidence (sourceRef = an evidence id such as ev_1), user (a value the user said), node (sourceRef = <node id>.<key>), model (free text, only where the contract accepts it).',
    },
    properties: {
      key: { type: 'string', description: { 'zh-CN': '产出键', en: 'The output key' } },
      value: { type: 'json', description: { 'zh-CN': '产出的值（任意 JSON）', en: 'The value (any JSON)' } },
      // No schema enum: an unknown type is the validator's OUTPUT_SOURCE_INVALID (docs/observations.md), with the accepted ones.
      sourceType: {
        type: 'string',
        description: {
          'zh-CN': '来源类型：evidence、user、node 或 model',
          en: 'The source type: evidence, user, node or model',
        },
      },
      sourceRef: {
        type: 'string',
        description: {
          'zh-CN': '来源引用：证据编号或 <节点id>.<键>',
          en: 'The source reference: an evidence id or <node id>.<key>',
        },
      },
    },
    required: ['key', 'value', 'sourceType'],
  },
  builtin_node_delegate: {
    description: {
      'zh-CN': '把一项子任务委派给本节点允许的另一个流程执行，返回其产出。',
      en: 'Delegates a sub-task to another flow this node may delegate to, and returns its outputs.',
    },
    properties: {
      flow: {
        type: 'string',
        description: { 'zh-CN': '被委派流程的 id', en: 'The id of the flow to delegate to' },
      },
      task: {
        type: 'string',
        description: { 'zh-CN': '交给该流程的任务说明', en: 'The task for that flow' },
      },
    },
    required: ['flow', 'task'],
  },
  builtin_evidence_read: {
    description: {
      'zh-CN':
        '按 evidence 编号读取本次运行中一次工具调用的结果（可用 JSONata 的 path 只取其中一部分）。用于再次查看已被压缩的结果。',
      en: 'Reads the result of a tool call of this run by its evidence id (optionally only the part a JSONata `path` selects). Use it to see again a result that was compacted.',
    },
    properties: {
      id: { type: 'string', description: { 'zh-CN': '证据编号，如 ev_3', en: 'The evidence id, e.g. ev_3' } },
      path: {
        type: 'string',
        description: {
          'zh-CN': '可选：JSONata 表达式，从结果中选出一部分',
          en: 'Optional: a JSONata expression selecting a part of the result',
        },
      },
    },
    required: ['id'],
  },
};

const built = new Map<string, ToolDescriptor>();

/**
 * The descriptor of a builtin in a locale: name, description and JSON input schema. Built once per
 * (name, locale) and frozen: schema validation caches compiled schemas by object identity.
 */
export function builtinDescriptor(name: BuiltinName, locale: Locale): ToolDescriptor {
  const key = `${name}\u0000${locale}`;
  let descriptor = built.get(key);
  if (!descriptor) {
    descriptor = Object.freeze(makeDescriptor(name, locale));
    built.set(key, descriptor);
  }
  return descriptor;
}

function makeDescriptor(name: BuiltinName, locale: Locale): ToolDescriptor {
  const text = TEXTS[name];
  const properties: Record<string, JsonSchema> = {};
  for (const [prop, spec] of Object.entries(text.properties)) properties[prop] = propertySchema(spec, locale);
  return {
    name,
    description: text.description[locale],
    inputSchema: { type: 'object', properties, required: [...text.required], additionalProperties: false },
    kind: 'builtin',
    readOnlyHint: true,
  };
}

function propertySchema(spec: PropertyText, locale: Locale): JsonSchema {
  const description = spec.description[locale];
  if (spec.type === 'json') return { description };
  if (spec.type === 'array') return { type: 'array', items: { type: 'string' }, description };
  return { type: 'string', description };
}
