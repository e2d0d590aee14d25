import type { Locale, Localized } from './locale.js';
import { MCP_SPECS } from './error-codes-mcp.js';
import { PROVENANCE_SPECS } from './error-codes-provenance.js';
import type { OutcomeName } from './outcome.js';
import type { Producer } from './producers.js';
import { GUARD_CODES } from './guard-codes.js';

export type { Producer } from './producers.js';
import { fill, type ReasonParams } from './template-fill.js';
export { fill, type ReasonParams } from './template-fill.js';

interface CodeSpec {
  readonly no: number;
  readonly producer: Producer;
  readonly outcome: OutcomeName;
  /** Reason template per locale; `{name}` placeholders are filled by `reason()`. Says what happened, never what to do. */
  readonly reason: Localized<string>;
}

const SPECS = {
  TOOL_TIMEOUT: {
    no: 50401,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: {
      'zh-CN': '工具 {tool} 调用超时（{timeoutMs} ms）',
      en: 'Tool {tool} timed out after {timeoutMs} ms',
    },
  },
  TOOL_UNREACHABLE: {
    no: 50301,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: { 'zh-CN': '工具 {tool} 不可达：{detail}', en: 'Tool {tool} is unreachable: {detail}' },
  },
  TOOL_IO_ERROR: {
    no: 50201,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: { 'zh-CN': '工具 {tool} 通信失败：{detail}', en: 'I/O failure calling tool {tool}: {detail}' },
  },
  MCP_RPC_ERROR: {
    no: 50202,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: {
      'zh-CN': '工具 {tool} 返回协议错误 [{rpcCode}]：{detail}',
      en: 'Tool {tool} answered with a protocol error [{rpcCode}]: {detail}',
    },
  },
  MCP_INVALID_PARAMS: {
    no: 50203,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: {
      'zh-CN': '工具 {tool} 不接受这些参数：{detail}',
      en: 'Tool {tool} refused the parameters: {detail}',
    },
  },
  MCP_TOOL_ERROR: {
    no: 50001,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: { 'zh-CN': '工具 {tool} 执行出错：{detail}', en: 'Tool {tool} reported an error: {detail}' },
  },
  TOOL_ERROR: {
    no: 50000,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: { 'zh-CN': '工具 {tool} 执行异常：{detail}', en: 'Tool {tool} failed unexpectedly: {detail}' },
  },
  TOOL_BUSINESS_FAILED: {
    no: 50002,
    producer: 'response-contract',
    outcome: 'FAILED',
    reason: { 'zh-CN': '业务失败 [{code}]：{message}', en: 'Business failure [{code}]: {message}' },
  },
  ARG_JSON_INVALID: {
    no: 40001,
    producer: 'arg-policy',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '参数不是合法的 JSON 对象：{detail}',
      en: 'The arguments are not a valid JSON object: {detail}',
    },
  },
  ARG_REJECTED: {
    no: 40301,
    producer: 'arg-policy',
    outcome: 'REJECTED',
    reason: { 'zh-CN': '参数 [{field}] 不符合规则：{rule}', en: 'Argument [{field}] breaks a rule: {rule}' },
  },
  CATALOG_DENIED: {
    no: 40302,
    producer: 'catalog',
    outcome: 'REJECTED',
    reason: { 'zh-CN': '工具 {tool} 在当前节点不可用', en: 'Tool {tool} is not available in this node' },
  },
  PARAM_REQUIRED_MISSING: {
    no: 42201,
    producer: 'arg-policy',
    outcome: 'REJECTED',
    reason: { 'zh-CN': '缺少必填参数 [{field}]', en: 'Missing required argument [{field}]' },
  },
  PARAM_PROVENANCE_MISMATCH: {
    no: 42202,
    producer: 'param-contract',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '参数 [{field}] 的值 {value} 不在 {tools} 的查询结果中',
      en: 'The value {value} of argument [{field}] is not in the results of {tools}',
    },
  },
  PARAM_PROVENANCE_QUERY_FIRST: {
    no: 42203,
    producer: 'param-contract',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '参数 [{field}] 须来自 {tools} 的查询结果，尚无该查询',
      en: 'Argument [{field}] must come from a result of {tools}, and none has been made',
    },
  },
  PARAM_PROVENANCE_ASK_FIRST: {
    no: 42204,
    producer: 'param-contract',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '参数 [{field}] 的值 {value} 须由用户提供，用户未提到',
      en: 'The value {value} of argument [{field}] must come from the user, who has not said it',
    },
  },
  PARAM_PROVENANCE_REJECTED: {
    no: 42205,
    producer: 'param-contract',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '参数 [{field}] 的值 {value} 不在允许范围内',
      en: 'The value {value} of argument [{field}] is not allowed',
    },
  },
  FINGERPRINT_TRIP: {
    no: 42901,
    producer: 'fingerprint',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '相同参数已调用 {tool} {count} 次，本次未执行',
      en: 'Tool {tool} was already called {count} times with the same arguments; this call was not executed',
    },
  },
  APPROVAL_NOT_GATED: {
    no: 42245,
    producer: 'builtin_node_approval',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '没有被拦下待确认的写操作 {tool}',
      en: 'There is no gated write call of {tool} waiting for approval',
    },
  },
  APPROVAL_TOOL_MISMATCH: {
    no: 42246,
    producer: 'builtin_node_approval',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '申请确认的工具 {tool} 与被拦下的写操作 {gated} 不一致',
      en: 'The approval names {tool}, but the gated write call is {gated}',
    },
  },
  APPROVAL_DENIED: {
    no: 42247,
    producer: 'builtin_node_approval',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '用户拒绝了写操作 {tool}：{comment}',
      en: 'The user declined the write call of {tool}: {comment}',
    },
  },
  FOLLOW_UP_ANSWERED: {
    no: 42250,
    producer: 'builtin_node_follow_up',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '该问题用户已回答：{answer}',
      en: 'The user already answered this question: {answer}',
    },
  },
  FOLLOW_UP_UNGROUNDED: {
    no: 42251,
    producer: 'builtin_node_follow_up',
    outcome: 'REJECTED',
    reason: { 'zh-CN': '追问{what}', en: 'The question {what}' },
  },
  OUTPUT_KEY_UNDECLARED: {
    no: 42260,
    producer: 'builtin_output_set',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '产出键 [{key}] 未在节点契约中声明',
      en: 'Output key [{key}] is not declared by the node',
    },
  },
  OUTPUT_SOURCE_INVALID: {
    no: 42261,
    producer: 'builtin_output_set',
    outcome: 'REJECTED',
    reason: { 'zh-CN': '来源校验失败：{detail}', en: 'Source check failed: {detail}' },
  },
  OUTPUT_SOURCE_REF_MISSING: {
    no: 42262,
    producer: 'builtin_output_set',
    outcome: 'REJECTED',
    reason: { 'zh-CN': '产出 [{key}] 缺少 sourceRef', en: 'Output [{key}] has no sourceRef' },
  },
  OUTPUT_VALUE_MISMATCH: {
    no: 42263,
    producer: 'builtin_output_set',
    outcome: 'REJECTED',
    reason: { 'zh-CN': '来源校验失败：{detail}', en: 'Source check failed: {detail}' },
  },
  FINISH_OUTPUTS_MISSING: {
    no: 42270,
    producer: 'builtin_node_finish',
    outcome: 'REJECTED',
    reason: { 'zh-CN': '必填产出未写入：{keys}', en: 'Required outputs not written: {keys}' },
  },
  DELEGATION_OUT_OF_BOUNDS: {
    no: 42280,
    producer: 'builtin_node_delegate',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '流程 {flow} 不在本节点可委派的范围内',
      en: 'Flow {flow} is not among the flows this node may delegate to',
    },
  },
  EVIDENCE_NOT_FOUND: {
    no: 42290,
    producer: 'builtin_evidence_read',
    outcome: 'REJECTED',
    reason: { 'zh-CN': '证据 {id} 不存在', en: 'There is no evidence {id}' },
  },
  RESOURCE_NOT_LINKED: {
    no: 42292,
    producer: 'builtin_resource_read',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '本次运行的工具结果中没有链接到 {uri}',
      en: 'No tool result of this run links to {uri}',
    },
  },
  RESOURCE_SERVER_UNKNOWN: {
    no: 42293,
    producer: 'builtin_resource_read',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '服务器“{server}”不是本节点的资源服务器',
      en: 'Server "{server}" is not one of this node’s resource servers',
    },
  },
  APPROVAL_REQUIRED: {
    no: 20201,
    producer: 'write-gate',
    outcome: 'DEFERRED',
    reason: { 'zh-CN': '该写操作须经用户确认', en: 'This write needs the user’s approval' },
  },
  WRITE_PENDING_VERIFY: {
    no: 20202,
    producer: 'write-gate',
    outcome: 'DEFERRED',
    reason: {
      'zh-CN': '写操作 {tool} 的结果尚待核实',
      en: 'The result of the write {tool} is not verified yet',
    },
  },
  WRITE_IN_FLIGHT: {
    no: 20203,
    producer: 'write-gate',
    outcome: 'DEFERRED',
    reason: { 'zh-CN': '相同的写操作 {tool} 正在执行', en: 'The same write {tool} is executing' },
  },
  WRITE_NOT_EXECUTED: {
    no: 20204,
    producer: 'recovery',
    outcome: 'DEFERRED',
    reason: {
      'zh-CN': '写操作 {tool} 被中断，回查未发现其结果，未执行',
      en: 'The write {tool} was interrupted and the look-back found no effect: it was not executed',
    },
  },
  WRITE_RESULT_UNKNOWN: {
    no: 50302,
    producer: 'recovery',
    outcome: 'FAILED',
    reason: {
      'zh-CN': '写操作 {tool} 被中断，结果无法确定',
      en: 'The write {tool} was interrupted and its result cannot be determined',
    },
  },
  DELEGATE_FAILED: {
    no: 50003,
    producer: 'builtin_node_delegate',
    outcome: 'FAILED',
    reason: { 'zh-CN': '委派的流程 {flow} 失败：{detail}', en: 'The delegated flow {flow} failed: {detail}' },
  },
  OUTPUT_SCHEMA_MISMATCH: {
    no: 42264,
    producer: 'builtin_output_set',
    outcome: 'REJECTED',
    reason: {
      'zh-CN': '产出 [{key}] 的值 {value} 不符合其 schema：{rules}',
      en: 'The value {value} of output [{key}] does not match its schema: {rules}',
    },
  },
  ...MCP_SPECS,
  ...GUARD_CODES,
  ...PROVENANCE_SPECS,
} as const satisfies Record<string, CodeSpec>;

export type RuntimeErrorCodeName = keyof typeof SPECS;

/**
 * A runtime error code: a name (persisted as a string), a number and a reason template per locale.
 * One class with a code instead of a tree of exception types: producers pick a code, never a class.
 */
export class RuntimeErrorCode {
  private static readonly all = new Map<string, RuntimeErrorCode>();

  private constructor(
    readonly name: RuntimeErrorCodeName,
    readonly no: number,
    readonly producer: Producer,
    /** The outcome an observation with this code has (docs/observations.md table). */
    readonly outcome: OutcomeName,
    private readonly templates: Localized<string>,
  ) {}

  /** Every code of the table above, in table order. */
  static values(): RuntimeErrorCode[] {
    return [...RuntimeErrorCode.registry().values()];
  }

  /** The code with this name; throws for an unknown name (a bug or corrupt data). */
  static of(name: string): RuntimeErrorCode {
    const code = RuntimeErrorCode.registry().get(name);
    if (!code) throw new Error(`unknown RuntimeErrorCode ${JSON.stringify(name)}`);
    return code;
  }

  /** A code of a user guard (docs/interceptors.md): not in the table, its reason is the guard's own text. */
  static user(name: string, no: number, outcome: Exclude<OutcomeName, 'SUCCESS'>): RuntimeErrorCode {
    return new RuntimeErrorCode(name as RuntimeErrorCodeName, no, 'user-guards', outcome, USER_REASON);
  }

  /** The reason text for this code in a locale, with its placeholders filled. */
  reason(locale: Locale, params: ReasonParams = {}): string {
    return fill(this.templates[locale], params);
  }

  /** The raw reason template (for docs and tests). */
  template(locale: Locale): string {
    return this.templates[locale];
  }

  toString(): string {
    return this.name;
  }

  toJSON(): string {
    return this.name;
  }

  private static registry(): Map<string, RuntimeErrorCode> {
    if (RuntimeErrorCode.all.size === 0) {
      for (const [name, spec] of Object.entries(SPECS) as [RuntimeErrorCodeName, CodeSpec][]) {
        RuntimeErrorCode.all.set(
          name,
          new RuntimeErrorCode(name, spec.no, spec.producer, spec.outcome, spec.reason),
        );
      }
    }
    return RuntimeErrorCode.all;
  }
}

const USER_REASON: Localized<string> = { 'zh-CN': '{reason}', en: '{reason}' };

/** `code('TOOL_TIMEOUT')`: the code object for a name, typed so that typos fail to compile. */
export function code(name: RuntimeErrorCodeName): RuntimeErrorCode {
  return RuntimeErrorCode.of(name);
}
