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
  'builtin_resource_read',
  'builtin_resource_list',
] as const;

/** A builtin tool name. */
export type BuiltinName = (typeof BUILTIN_NAMES)[number];

/** True for the name of a builtin tool. */
export function isBuiltinName(name: string): name is BuiltinName {
  return (BUILTIN_NAMES as readonly string[]).includes(name);
}

interface PropertyText {
  type: 'string' | 'array' | 'json';
  /** Absent where the property's name says it all (every token is sent on every round). */
  description?: Localized<string>;
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
      'zh-CN': '结束本节点（任务完成后调用）。',
      en: 'Ends this node once the task is done.',
    },
    properties: {
      summary: { type: 'string' },
    },
    required: ['summary'],
  },
  builtin_node_fail: {
    description: {
      'zh-CN': '任务无法完成时调用，以失败结束本节点。',
      en: 'Ends this node as failed when the task cannot be done.',
    },
    properties: {
      reason: { type: 'string' },
    },
    required: ['reason'],
  },
  builtin_node_follow_up: {
    description: {
      'zh-CN': '向用户询问缺少的信息或请其选择，并等待回答。',
      en: 'Asks the user for missing information or a choice, and waits for the answer.',
    },
    properties: {
      // The names say it: no descriptions.
      question: { type: 'string' },
      options: { type: 'array' },
    },
    required: ['question'],
  },
  builtin_node_approval: {
    description: {
      'zh-CN': '为刚因须经确认而被拦下的写操作申请用户确认；tool 填该写工具名。',
      en: 'Asks the user to approve the write call just stopped for approval; `tool` is that write tool.',
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
  builtin_resource_read: {
    description: {
      'zh-CN': '读取工具结果中 resource_link 链接的资源内容（MCP resources/read）。结果记为证据，可被引用。',
      en: 'Reads the resource a tool result linked to (a resource_link; MCP resources/read). The result is evidence and can be cited.',
    },
    properties: {
      uri: {
        type: 'string',
        description: {
          'zh-CN': 'resource_link 中的 uri，或 builtin_resource_list 列出的资源 uri（或按其模板填写的 uri）',
          en: 'The uri of the resource_link, or of a resource builtin_resource_list listed (or filled in from one of its templates)',
        },
      },
      server: {
        type: 'string',
        description: {
          'zh-CN': '可选：资源所在的 MCP 服务器（本节点有多个资源服务器时必填）',
          en: 'Optional: the MCP server of the resource (required when this node has several resource servers)',
        },
      },
    },
    required: ['uri'],
  },
  builtin_resource_list: {
    description: {
      'zh-CN':
        '列出本节点可读的 MCP 服务器资源及资源模板（resources/list、resources/templates/list）；再用 builtin_resource_read 读取。',
      en: "Lists the resources and resource templates of this node's MCP servers (resources/list, resources/templates/list); read one with builtin_resource_read.",
    },
    properties: {
      server: {
        type: 'string',
        description: {
          'zh-CN': '可选：只列出这个服务器的资源',
          en: "Optional: list only this server's resources",
        },
      },
    },
    required: [],
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
  const described = spec.description ? { description: spec.description[locale] } : {};
  if (spec.type === 'json') return described;
  if (spec.type === 'array') return { type: 'array', items: { type: 'string' }, ...described };
  return { type: 'string', ...described };
}
