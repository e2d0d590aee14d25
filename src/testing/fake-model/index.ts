import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { AgentRuntimeError } from '../../domain/agent-runtime-error.js';
import { ScriptSchema, type Script } from '../../model/scripted.js';
import { followNextSteps } from './next-steps.js';
import { startStrictFake, type Play, type StrictFake } from './server.js';
import type { Turn } from './wire.js';

/**
 * A stand-in model for end-to-end tests without a key (docs/testing.md, "A stand-in model"): an
 * OpenAI Chat Completions or Anthropic Messages server on loopback that answers the i-th request with
 * turn i of a script — the scripted model's format (`turns: [{text?, calls: [{tool, args}]}]`) — and
 * refuses, with the provider's own status and error shape, every request the real service refuses.
 */

/** The wire a stand-in model speaks. */
export type FakeModelKind = 'openai' | 'anthropic';

/** Options of `startFakeModel`. */
export interface FakeModelOptions {
  /** The turns to play: a script, or the path of a YAML/JSON file holding one (as `scripted:FILE`). */
  readonly script: Script | string;
  /** Default `openai` (Chat Completions, as OpenAI-compatible servers speak it). */
  readonly kind?: FakeModelKind;
  /** The API key requests must carry (default `sk-<kind>-test`). */
  readonly key?: string;
  /** The model ids served (default: any); another is refused as the provider refuses an unknown model. */
  readonly models?: readonly string[];
  /** The loopback port (default: any free one). */
  readonly port?: number;
  /**
   * Follow the observations' next steps (default false): ask for approval when a write is gated, make
   * the gated call again once approved, repeat a call that did not execute — without script turns.
   */
  readonly followNextSteps?: boolean;
}

/** A running stand-in model: `url` is the API root (`…/v1`), to give as OPENAI_BASE_URL or ANTHROPIC_BASE_URL. */
export type FakeModel = StrictFake;

/** A script a stand-in model cannot play: not YAML or JSON, or not the scripted model's format. */
export class FakeModelScriptError extends AgentRuntimeError {
  declare readonly code: 'SCRIPT_INVALID';

  constructor(message: string, options?: { cause?: unknown }) {
    super('SCRIPT_INVALID', message, options);
  }
}

/**
 * Starts a stand-in model on 127.0.0.1; `close()` stops it. Throws FakeModelScriptError for a script
 * that is not one, and the listen error (EADDRINUSE) for a port in use.
 */
export async function startFakeModel(options: FakeModelOptions): Promise<FakeModel> {
  const kind = options.kind ?? 'openai';
  const script = loadScript(options.script);
  const play = options.followNextSteps ? followNextSteps(kind, playScript(script)) : playScript(script);
  return startStrictFake(kind, play, options.key ?? `sk-${kind}-test`, {
    ...(options.models ? { models: options.models } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
}

function loadScript(source: Script | string): Script {
  let value: unknown = source;
  if (typeof source === 'string') {
    try {
      value = parse(readFileSync(source, 'utf8'));
    } catch (error) {
      throw new FakeModelScriptError(`${source} is not YAML or JSON`, { cause: error });
    }
  }
  const parsed = ScriptSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const where = typeof source === 'string' ? source : 'the script';
  const issue = parsed.error.issues[0];
  const at = issue ? ` (${issue.path.join('.') || 'top level'}: ${issue.message})` : '';
  throw new FakeModelScriptError(
    `${where} is not a scripted-model file (turns: [{text?, calls: [{tool, args}]}])${at}`,
  );
}

/**
 * A script as a fake's play: the i-th accepted request gets turn i, with the call ids the scripted
 * model gives (`call_<n>_<k>` unless set); past the last turn a text-only answer saying so.
 */
export function playScript(script: Script): Play {
  const turns = ScriptSchema.parse(script).turns;
  return (index) => {
    const turn = turns[index];
    if (!turn) return { text: `the stand-in model has no turn ${index + 1}` };
    const n = index + 1;
    return {
      ...(turn.text !== undefined ? { text: turn.text } : {}),
      calls: (turn.calls ?? []).map((call, i) => ({
        id: call.id ?? `call_${n}_${i + 1}`,
        name: call.tool,
        args: 'rawArgs' in call ? call.rawArgs : JSON.stringify(call.args ?? {}),
      })),
      usage: { input: 0, output: 0 },
    } satisfies Turn;
  };
}
