import { deepFreeze } from '../domain/frozen.js';
import { readInputFileSync } from '../fs/input-file.js';
import { parseLimited, YAML_LIMITS } from '../fs/yaml-limits.js';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { ModelCallContext, ModelClient, ModelRequest, ModelResult } from './model.js';

const CallSchema = z.union([
  z.strictObject({
    tool: z.string().min(1),
    args: z.record(z.string(), z.unknown()).optional(),
    /** Argument name → tool name: the argument is that tool's input schema as this model call was given it. */
    schemaArgs: z.record(z.string(), z.string().min(1)).optional(),
    id: z.string().optional(),
  }),
  z.strictObject({ tool: z.string().min(1), rawArgs: z.string(), id: z.string().optional() }),
]);

const TurnSchema = z.strictObject({
  node: z.string().min(1).optional(),
  item: z.int().nonnegative().optional(),
  text: z.string().optional(),
  calls: z.array(CallSchema).optional(),
  usage: z
    .strictObject({ inputTokens: z.int().nonnegative(), outputTokens: z.int().nonnegative() })
    .optional(),
});

/** The scripted model's file format (docs/models/README.md). */
export const ScriptSchema = z.strictObject({ turns: z.array(TurnSchema) });

export type ScriptedTurn = z.input<typeof TurnSchema>;
export type Script = z.input<typeof ScriptSchema>;

/**
 * A deterministic model for tests and demos (docs/models/README.md): turn i answers the run's i-th model call,
 * counted across nodes and process restarts (the count is the run's, so the model is stateless).
 * A turn naming another node, or a call past the last turn, fails the call with a clear message.
 */
export function scriptedModel(script: Script, id = 'scripted:inline'): ModelClient {
  const turns = parsedTurns(script);
  return {
    id,
    call(request: ModelRequest, context: ModelCallContext): Promise<ModelResult> {
      if (context.nodeCallIndex !== undefined) return byNode(turns, request, context, context.nodeCallIndex);
      const n = context.callIndex + 1;
      const turn = turns[context.callIndex];
      if (!turn) return Promise.resolve({ ok: false, message: `scripted model has no turn ${n}` });
      if (turn.node !== undefined && turn.node !== context.nodeId) {
        return Promise.resolve({
          ok: false,
          message: `scripted model turn ${n} is for node ${turn.node}, but the run is in node ${context.nodeId}`,
        });
      }
      return Promise.resolve(answerWith(turn, request, `${n}`));
    },
  };
}

type ParsedTurn = z.output<typeof TurnSchema>;

/** A call's arguments, each of `schemaArgs` the input schema the request gave for its tool (checked present). */
function argsOf(
  call: { args?: Record<string, unknown> | undefined; schemaArgs?: Record<string, string> | undefined },
  request: ModelRequest,
): Record<string, unknown> {
  const schemas = Object.entries(call.schemaArgs ?? {}).map(([arg, tool]): [string, unknown] => [
    arg,
    request.tools.find((t) => t.name === tool)?.inputSchema,
  ]);
  return { ...call.args, ...Object.fromEntries(schemas) };
}

/**
 * Parallel branches call the model at the same time, in no fixed order: each node takes the turns
 * naming it (`node:`), in order, by its own call index. In a map's body each item takes them from the
 * first, or, when the node's turns name items (`item:`), the turns of its item.
 */
function byNode(
  turns: readonly ParsedTurn[],
  request: ModelRequest,
  context: ModelCallContext,
  k: number,
): Promise<ModelResult> {
  const mine = turns.filter((t) => t.node === context.nodeId);
  const own = mine.some((t) => t.item !== undefined)
    ? mine.filter((t) => t.item === context.itemIndex)
    : mine;
  const turn = own[k];
  if (!turn)
    return Promise.resolve({
      ok: false,
      message: `scripted model has no turn ${k + 1} for node ${context.nodeId}${context.itemIndex !== undefined ? ` item ${context.itemIndex}` : ''} (nodes running at the same time take the turns naming them, in order)`,
    });
  const item = context.itemIndex !== undefined ? `_${context.itemIndex}` : '';
  return Promise.resolve(answerWith(turn, request, `${context.nodeId}${item}_${k + 1}`));
}

function answerWith(turn: ParsedTurn, request: ModelRequest, n: string): ModelResult {
  const calls = turn.calls ?? [];
  for (const call of calls)
    for (const tool of 'schemaArgs' in call ? Object.values(call.schemaArgs ?? {}) : [])
      if (!request.tools.some((t) => t.name === tool))
        return {
          ok: false,
          message: `scripted model turn ${n}: schemaArgs names tool ${tool}, which this model call was not given`,
        };
  const toolCalls = calls.map((call, i) => ({
    callId: call.id ?? `call_${n}_${i + 1}`,
    tool: call.tool,
    rawArgs: 'rawArgs' in call ? call.rawArgs : JSON.stringify(argsOf(call, request)),
  }));
  const inputTokens = turn.usage?.inputTokens ?? 0;
  const outputTokens = turn.usage?.outputTokens ?? 0;
  return {
    ok: true,
    text: turn.text ?? '',
    toolCalls,
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
  };
}

/**
 * Loads a scripted model from a YAML (or JSON) file; throws a readable error for a bad file. The file
 * must be a regular file within the input size cap (`maxFileBytes`, default from the process's
 * `AGENT_RUNTIME_MAX_FILE_BYTES`), and the error names the file, the place and the rule broken, never
 * the file's content (it may be any file).
 */
export function loadScriptedModel(file: string, maxFileBytes?: number): ModelClient {
  let text: string;
  try {
    text = readInputFileSync(file, maxFileBytes !== undefined ? { maxBytes: maxFileBytes } : {});
  } catch (error) {
    throw new Error(`cannot read scripted model file ${file}: ${(error as Error).message}`, { cause: error });
  }
  // Scripts of long runs hold many turns: only the flows' value count is kept small.
  const parsed = parseLimited(text, { ...YAML_LIMITS, maxValues: 1_000_000 });
  if (!parsed.ok) throw new Error(`scripted model file ${file} is not valid YAML: ${parsed.message}`);
  const checked = ScriptSchema.safeParse(parsed.data);
  if (!checked.success)
    throw new Error(`scripted model file ${file}: ${describeIssues(checked.error.issues)}`);
  return scriptedModel(checked.data, `scripted:${file}`);
}

/** Schema issues by place and rule, without echoing keys or values of the file. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 5).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
    const rule =
      issue.code === 'unrecognized_keys'
        ? 'unknown key (expected turns; a turn has node, item, text, calls, usage; a call tool, args, schemaArgs, rawArgs, id)'
        : issue.code === 'invalid_type'
          ? `expected ${issue.expected}`
          : issue.code.replace(/_/g, ' ');
    return `${where}: ${rule}`;
  });
  const more = issues.length > shown.length ? `; and ${issues.length - shown.length} more` : '';
  return `${shown.join('; ')}${more}`;
}

type Turns = z.output<typeof ScriptSchema>['turns'];

/**
 * Scripts validated before, by their JSON text, within SCRIPT_CACHE_BYTES in all: an entry counts its
 * key (two bytes a character) and its parsed turns, estimated at twice the key (objects and arrays
 * take more room than their JSON text).
 */
export const SCRIPT_CACHE_BYTES = 2 * 1024 * 1024;

const validated = new LRUCache<string, Turns>({
  maxSize: SCRIPT_CACHE_BYTES,
  sizeCalculation: (_value, key) => Math.max(1, key.length * 2 * 3),
});

/**
 * The script's turns, validated once per content: a test or bench that builds the same script for
 * each of thousands of runs pays for its validation once. The turns are frozen, since every model made
 * from the same content shares them. A script that is not plain JSON data (it cannot be serialised)
 * is validated every time and fails there.
 */
function parsedTurns(script: Script): Turns {
  let key: string | undefined;
  try {
    key = JSON.stringify(script);
  } catch {
    key = undefined;
  }
  const known = key === undefined ? undefined : validated.get(key);
  if (known) return known;
  const parsed = ScriptSchema.safeParse(script);
  if (!parsed.success) throw new Error(`invalid scripted model: ${z.prettifyError(parsed.error)}`);
  const turns = deepFreeze(parsed.data.turns);
  if (key !== undefined) validated.set(key, turns);
  return turns;
}
