import { code, RuntimeErrorCode } from '../domain/error-codes.js';
import { USER_CODE_RANGE } from '../domain/guard-codes.js';
import { hintTemplate, type HintKey } from '../domain/hints.js';
import { Outcome } from '../domain/outcome.js';
import { STANDARD_BUILTINS } from './builtin/standard.js';
import { DEFAULT_CONFIRM_WORDS, DEFAULT_YES_NO_OPTIONS } from './builtin/follow-up-rules.js';
import { CATALOG_PRODUCES } from './catalog.js';
import { ARG_POLICY_PRODUCES } from './guards/arg-policy.js';
import { FINGERPRINT_PRODUCES } from './guards/fingerprint.js';
import { INVOKE_PRODUCES } from './guards/invoke.js';
import { PARAM_CONTRACT_PRODUCES } from './guards/param-contract.js';
import { RESPONSE_CONTRACT_PRODUCES } from './guards/response-contract.js';
import { WRITE_GATE_PRODUCES } from './approval/index.js';
import type { ProducedCase } from './produces.js';
import { USER_GUARDS_PRODUCES } from './user-guards/steps.js';
import { ToolErrors, type InvokerErrorCode } from './tool-errors.js';

/** Cases of the producers outside the pipeline's guards and builtins (src/tools/invoker.ts, crash recovery). */
const INVOKER_CASES: Readonly<Record<InvokerErrorCode, string>> = {
  TOOL_TIMEOUT: 'no answer within the node’s `toolTimeoutMs` (the call is cancelled)',
  TOOL_UNREACHABLE: 'server down, connection refused, process exited',
  MCP_UNAUTHORIZED:
    'the server answered 401, or 403 `insufficient_scope` (scope step-up): a person must authorize; the node fails `TOOLS_UNAUTHORIZED` (under `serve`, for a server with `grant: authorization_code`, the run waits for Connect instead)',
  MCP_TASK_REQUIRED:
    'the tool declares `execution.taskSupport: required` and its server does not offer tasks for tool calls (or speaks 2026-07-28, where tasks are an extension): it is not called',
  TOOL_IO_ERROR: 'another transport or I/O failure',
  MCP_RPC_ERROR: 'a JSON-RPC error from the server',
  MCP_INVALID_PARAMS: 'the server answered -32602 (invalid params)',
  MCP_TOOL_ERROR: 'the tool result has `isError: true`',
  TOOL_ERROR:
    'any other error (fallback; a local tool’s `ToolRejectedException` is REJECTED with its own code)',
  MCP_OUTPUT_SCHEMA_MISMATCH:
    'the tool declares an `outputSchema` and its result (not `isError`) has no `structuredContent`, or one that breaks the schema',
};

const EXTERNAL: readonly ProducedCase[] = [
  {
    producer: 'invoker',
    case: 'the tool answered; its result is `structuredContent`, else its single text block parsed as JSON, else that text',
    code: null,
  },
  ...ToolErrors.codes
    .filter((c): c is InvokerErrorCode => c !== 'TOOL_BUSINESS_FAILED')
    .map((c) => ({ producer: 'invoker', case: INVOKER_CASES[c], code: c, next: ToolErrors.nextKey(c) })),
  {
    producer: 'recovery',
    case: 'after a crash, the look-back found no effect of an interrupted write (its approval still holds)',
    code: 'WRITE_NOT_EXECUTED',
    next: 'NEXT_WRITE_NOT_EXECUTED',
  },
  {
    producer: 'recovery',
    case: 'after a crash, an interrupted write’s effect cannot be determined (no `recover`, or the look-back failed)',
    code: 'WRITE_RESULT_UNKNOWN',
    next: 'NEXT_WRITE_RESULT_UNKNOWN',
  },
];

/** Choices the pipeline makes that the rest of the docs do not spell out, written down. */
const CHOICES = [
  '## Choices the pipeline makes',
  '',
  '- An empty (blank) argument string means `{}`: some OpenAI-compatible providers send it for tools without parameters.',
  '- Missing required fields are reported all at once (`缺少必填参数 [spaceId、name]`) and before any other schema violation;',
  '  of the other violations the most specific (deepest field) is reported. A tool schema that cannot be compiled (or has',
  '  more than 500 subschemas) refuses every call, ARG_REJECTED naming why: the check fails closed. `$schema` 2020-12 /',
  '  2019-09 select Ajv 2020 / 2019, else draft-07. A check stops after 100 errors or 250 ms (then the call is refused).',
  '- `enum` in a param contract is exact JSON equality (the value is sent to the tool as is); `source: evidence` and',
  '  `source: user` use the normalised matching of step 3 of the pipeline in [design](design.md#the-path-of-a-tool-call); objects deep-match with leaves compared as scalars.',
  '- How values are matched ([flows](flows.md#how-values-are-matched)): case, width and white space are folded on both sides.',
  '  Parameters need a whole leaf (`match: equals`) unless the contract says `match: contains`; outputs cited from evidence',
  '  may also be a whole word or phrase inside a text of the result (at token boundaries, at least 3 characters, 2 in',
  '  Chinese or Japanese). Each element of a list is checked on its own, each field under `fields` too; `source: [evidence, user]`',
  '  accepts either; an empty string or `null` for an optional argument or output needs no provenance.',
  '- What `contains` risks: a value that is a whole word of a text is found even where the text says something else about',
  '  it (`approved` in `not approved`); in CJK text any two characters of a run are found (`张伟` in `张伟明`); white space is',
  '  ignored (`1 2` counts as `12`); a path is found inside a longer path (`/tmp/x.md` in `/a/tmp/x.md`). Keep ids on',
  '  `equals`, select the relevant part with `path`, and use `contains` for quoted facts (names, paths, markers).',
  '- `source: evidence` without `from` accepts the SUCCESS evidence of any tool; look-back evidence counts.',
  '- Builtin tools are counted by the fingerprint step like any other call (step 5 of the pipeline in [design](design.md#the-path-of-a-tool-call) exempts only approved writes',
  '  and verify calls of a pending write): a third identical rejected `builtin_output_set` trips.',
  '- builtin_node_approval naming a tool the flow does not have while a gated call waits is APPROVAL_TOOL_MISMATCH',
  '  (the next step names the gated tool); naming a known read tool is APPROVAL_NOT_GATED. An approval already granted',
  '  for the waiting call makes a second request APPROVAL_NOT_GATED (call the write tool).',
  '- A write is looked back after TOOL_TIMEOUT, TOOL_UNREACHABLE and TOOL_IO_ERROR (its effect is unknown in all three).',
  '  Evidence is numbered in execution order: the failed write first, then its look-back (judged by its own tool’s',
  '  response contract). A found write is SUCCESS and cites the look-back; it is not marked pending (its own result is',
  '  unknown). The server may still commit a write after a timed-out look-back found nothing; only `idempotent` tools',
  '  (deduplicating by the idempotency key) close that gap. A `found` expression that fails to evaluate decides nothing:',
  '  during normal running the write stays FAILED; after a crash its result is unknown (WRITE_RESULT_UNKNOWN).',
  '- A `pending` write whose policy has no `verify` is logged and not marked pending (nothing could clear it).',
  '- Flow expressions that fail at run time (`path`, `okPath`, `pending`, `verify`) are logged at WARN and',
  '  treated as “no match” / “not pending”.',
  '- builtin_output_set checks an output’s `schema` right after its key and before its source, so a value of the',
  '  wrong type is told so (OUTPUT_SCHEMA_MISMATCH) even when its source is wrong too. Values are never coerced',
  '  (`"3"` is not an integer); the reason names at most three failing rules, the value and schema shown shortened.',
  '- A tool’s `outputSchema` is checked on every result that is not `isError` (MCP_OUTPUT_SCHEMA_MISMATCH when',
  '  `structuredContent` is missing or breaks it); a write that answered so did run, and its next step says not to',
  '  repeat it. An `outputSchema` that does not compile is logged and not enforced, like a tool’s `inputSchema`.',
  '',
];

/** Every declared producer case, in pipeline order (docs/design.md), then the builtins (docs/observations.md), then the rest. */
export function producedCases(): ProducedCase[] {
  return [
    ...CATALOG_PRODUCES,
    ...ARG_POLICY_PRODUCES,
    ...PARAM_CONTRACT_PRODUCES,
    ...USER_GUARDS_PRODUCES,
    ...WRITE_GATE_PRODUCES,
    ...FINGERPRINT_PRODUCES,
    ...INVOKE_PRODUCES,
    ...RESPONSE_CONTRACT_PRODUCES,
    ...STANDARD_BUILTINS.flatMap((builtin) => builtin.produces),
    ...EXTERNAL,
  ];
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function outcomeOf(c: ProducedCase): string {
  return c.code === null ? (c.outcome ?? 'SUCCESS') : code(c.code).outcome;
}

function nextText(key: HintKey | undefined): string {
  return key ? `\`${key}\`: ${cell(hintTemplate('zh-CN', key))}` : '—';
}

/** docs/observations.md, generated from the declarations next to each producer (`npm run docs:observations`). */
export function renderObservationsDoc(): string {
  const lines = [
    '# Observations: producers, cases, codes, outcomes',
    '',
    '<!-- Generated by `npm run docs:observations` from src/tools/observations-doc.ts and the `*_PRODUCES`',
    '     declarations beside each guard and builtin. Do not edit by hand: test/tools/pipeline.observations-doc.test.ts',
    '     fails when this file drifts from the code. -->',
    '',
    'Every tool call ends in one observation, classified by whoever produced it ([design](design.md#the-path-of-a-tool-call)). The loop only',
    'counts by outcome:',
    '',
    '| outcome | advances (resets stalls) | stalls (counts one) |',
    '|---|---|---|',
    ...Outcome.values.map(
      (o) => `| ${o.name} | ${o.advances() ? 'yes' : 'no'} | ${o.stalls() ? 'yes' : 'no'} |`,
    ),
    '',
    'The chain is catalog → ArgPolicy → ParamContract → user guards → WriteGate → Fingerprint → invoke →',
    'ResponseContract → user guards (after) → WriteGate.after → Evidence; the first step that produces an',
    'observation ends it. User guards ([interceptors](interceptors.md)) bring codes of their own, numbered',
    `${USER_CODE_RANGE.min}–${USER_CODE_RANGE.max}; they are not in the tables below. A builtin rejects a`,
    'call by returning a REJECTED observation with its own code, reason and next step — the builtin rows',
    'below; an error it throws is FAILED `TOOL_ERROR`. A `ToolRejectedException` thrown by a builtin or by a local',
    'tool (`defineTool`) is REJECTED with its code, reason and next step.',
    '',
    '## Producers',
    '',
    '| producer | case | outcome | code (no.) | next step (zh-CN template) |',
    '|---|---|---|---|---|',
    ...producedCases().map((c) => {
      const codeCell = c.code !== null ? `\`${c.code}\` (${code(c.code).no})` : c.outcome ? '(kept)' : '—';
      return `| ${cell(c.producer)} | ${cell(c.case)} | ${outcomeOf(c)} | ${codeCell} | ${nextText(c.next)} |`;
    }),
    '',
    '## Reason templates',
    '',
    'Reasons say only what happened; advice lives in the next step. `message()` joins them:',
    '`<原因>。下一步：<下一步>` (zh-CN), `<reason>. Next: <next step>` (en).',
    '',
    '| code | no. | outcome | zh-CN | en |',
    '|---|---|---|---|---|',
    ...RuntimeErrorCode.values().map(
      (c) =>
        `| \`${c.name}\` | ${c.no} | ${c.outcome} | ${cell(c.template('zh-CN'))} | ${cell(c.template('en'))} |`,
    ),
    '',
    '## Follow-up confirmation words',
    '',
    'builtin_node_follow_up is FOLLOW_UP_UNGROUNDED (verbal write confirmation) when the question contains one',
    'of these words (normalised: case, width and white space folded), or when all its options are yes/no words,',
    '*and* it names a write tool of the node or a gated call of the node is waiting. Extend the lists with',
    '`createBuiltins({ followUp: { confirmWords: [...], yesNoOptions: [...] } })`.',
    '',
    `- confirmation words: ${DEFAULT_CONFIRM_WORDS.map((w) => `\`${w}\``).join(', ')}`,
    `- yes/no options: ${DEFAULT_YES_NO_OPTIONS.map((w) => `\`${w}\``).join(', ')}`,
    '',
    ...CHOICES,
  ];
  return lines.join('\n');
}
