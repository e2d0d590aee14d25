import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ScriptSchema } from '../../src/model/scripted.js';
import type { FakeKind, Play } from '../../src/testing/fake-model/server.js';
import { playScript } from '../../src/testing/fake-model/index.js';

/**
 * The turns of a scripted-model file (the acceptance turns) as a strict fake's play: the i-th accepted
 * request gets turn i, with the same call ids the scripted model gives, so a run through a provider can
 * be compared with the scripted run step by step.
 */
export function playTurns(file: string): Play {
  return playScript(ScriptSchema.parse(parse(readFileSync(file, 'utf8'))));
}

/** One way of reaching a provider: the fake's kind and whether the runtime streams. */
export interface Variant {
  name: string;
  kind: FakeKind;
  stream: boolean;
}

/** The six provider paths: anthropic, openai and an OpenAI-compatible (Qwen template) server, each with and without streaming. */
export const VARIANTS: readonly Variant[] = (['anthropic', 'openai', 'qwen'] as const).flatMap((kind) => [
  { name: `${kind}`, kind, stream: false },
  { name: `${kind}-sse`, kind, stream: true },
]);

/** The `--model` name and the environment that point the CLI at a fake of this kind. */
export function providerSetup(
  kind: FakeKind,
  url: string,
  key: string,
  stream: boolean,
): { model: string; env: Record<string, string> } {
  const streamEnv: Record<string, string> = {
    AGENT_RUNTIME_MODEL_STREAM: stream ? '1' : '0',
    AGENT_RUNTIME_MODEL_MAX_RETRIES: '0',
  };
  switch (kind) {
    case 'anthropic':
      return {
        model: 'anthropic:claude-test',
        env: { ...streamEnv, ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: url },
      };
    case 'openai':
      return { model: 'openai:gpt-test', env: { ...streamEnv, OPENAI_API_KEY: key, OPENAI_BASE_URL: url } };
    case 'qwen':
      return {
        model: 'qwen:qwen-test',
        env: {
          ...streamEnv,
          AGENT_RUNTIME_PROVIDER_QWEN_BASE_URL: url,
          AGENT_RUNTIME_PROVIDER_QWEN_API_KEY: key,
        },
      };
  }
}
