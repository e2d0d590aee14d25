import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import type { ModelCallContext, ModelClient, ModelRequest, ModelResult } from './model.js';

const CallSchema = z.union([
  z.strictObject({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).optional(), id: z.string().optional() }),
  z.strictObject({ tool: z.string().min(1), rawArgs: z.string(), id: z.string().optional() }),
]);

const TurnSchema = z.strictObject({
  node: z.string().min(1).optional(),
  text: z.string().optional(),
  calls: z.array(CallSchema).optional(),
  usage: z
    .strictObject({ inputTokens: z.int().nonnegative(), outputTokens: z.int().nonnegative() })
    .optional(),
});

/** The scripted model's file format (SPEC §8). */
export const ScriptSchema = z.strictObject({ turns: z.array(TurnSchema) });

export type ScriptedTurn = z.input<typeof TurnSchema>;
export type Script = z.input<typeof ScriptSchema>;

/**
 * A deterministic model for tests and demos (SPEC §8): turn i answers the run's i-th model call,
 * counted across nodes and process restarts (the count is the run's, so the model is stateless).
 * A turn naming another node, or a call past the last turn, fails the call with a clear message.
 */
export function scriptedModel(script: Script, id = 'scripted:inline'): ModelClient {
  const parsed = ScriptSchema.safeParse(script);
  if (!parsed.success) throw new Error(`invalid scripted model: ${z.prettifyError(parsed.error)}`);
  const turns = parsed.data.turns;
  return {
    id,
    call(_request: ModelRequest, context: ModelCallContext): Promise<ModelResult> {
      const n = context.callIndex + 1;
      const turn = turns[context.callIndex];
      if (!turn) return Promise.resolve({ ok: false, message: `scripted model has no turn ${n}` });
      if (turn.node !== undefined && turn.node !== context.nodeId) {
        return Promise.resolve({
          ok: false,
          message: `scripted model turn ${n} is for node ${turn.node}, but the run is in node ${context.nodeId}`,
        });
      }
      const toolCalls = (turn.calls ?? []).map((call, i) => ({
        callId: call.id ?? `call_${n}_${i + 1}`,
        tool: call.tool,
        rawArgs: 'rawArgs' in call ? call.rawArgs : JSON.stringify(call.args ?? {}),
      }));
      const inputTokens = turn.usage?.inputTokens ?? 0;
      const outputTokens = turn.usage?.outputTokens ?? 0;
      return Promise.resolve({
        ok: true,
        text: turn.text ?? '',
        toolCalls,
        usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      });
    },
  };
}

/** Loads a scripted model from a YAML (or JSON) file; throws a readable error for a bad file. */
export function loadScriptedModel(file: string): ModelClient {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read scripted model file ${file}: ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new Error(`scripted model file ${file} is not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  const parsed = ScriptSchema.safeParse(data);
  if (!parsed.success) throw new Error(`scripted model file ${file}: ${z.prettifyError(parsed.error)}`);
  return scriptedModel(parsed.data, `scripted:${file}`);
}
