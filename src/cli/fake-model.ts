import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { FakeModelScriptError, startFakeModel, type FakeModelKind } from '../testing/fake-model/index.js';
import { COMMON, UsageError, parse, str, strings } from './args.js';
import type { Command } from './commands.js';

const OPTIONS = {
  ...COMMON,
  script: { type: 'string' },
  kind: { type: 'string' },
  port: { type: 'string' },
  model: { type: 'string', multiple: true },
  key: { type: 'string' },
  'follow-next-steps': { type: 'boolean' },
} as const;

/**
 * `fake-model --script FILE [--kind openai|anthropic] [--port N] [--model ID]… [--key KEY]
 * [--follow-next-steps]`
 * (docs/testing.md, "A stand-in model"): serves a strict stand-in of the provider's API on 127.0.0.1
 * that answers request i with turn i of the script (with `--follow-next-steps`, answering the
 * runtime's approval protocol itself), and prints where it listens — one JSON line on
 * stdout (`{url, key, kind}`) and the environment to set on stderr — until SIGINT or SIGTERM (exit 0).
 * Exit 2 for a missing or bad script, kind or port, or a port in use.
 */
export const fakeModel: Command = async (argv) => {
  const parsed = parse('fake-model', argv, OPTIONS, { min: 0, max: 0, names: '' });
  const file = str(parsed, 'script');
  if (file === undefined)
    throw new UsageError('fake-model: missing --script FILE (a scripted-model turns file)');
  const path = resolve(file);
  if (!existsSync(path)) throw new UsageError(`fake-model: --script ${file}: no such file`);
  const kind = kindOf(str(parsed, 'kind'));
  const port = portOf(str(parsed, 'port'));
  const models = strings(parsed, 'model');
  const key = str(parsed, 'key');
  const fake = await startFakeModel({
    script: path,
    kind,
    ...(port !== undefined ? { port } : {}),
    ...(models.length > 0 ? { models } : {}),
    ...(key !== undefined ? { key } : {}),
    ...(parsed.values['follow-next-steps'] === true ? { followNextSteps: true } : {}),
  }).catch((error: unknown) => {
    throw new UsageError(`fake-model: ${describe(error)}`, { cause: error });
  });
  const prefix = kind === 'openai' ? 'OPENAI' : 'ANTHROPIC';
  const stopped = new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  process.stderr.write(
    `fake-model: a stand-in ${kind} API at ${fake.url}\n  ${prefix}_BASE_URL=${fake.url} ${prefix}_API_KEY=${fake.key}\n`,
  );
  // Last: a program waiting for this line may start using the server (and stop it) at once.
  process.stdout.write(`${JSON.stringify({ url: fake.url, key: fake.key, kind })}\n`);
  await stopped;
  await fake.close();
  return 0;
};

function kindOf(value: string | undefined): FakeModelKind {
  if (value === undefined || value === 'openai' || value === 'anthropic') return value ?? 'openai';
  throw new UsageError(`fake-model: --kind must be openai or anthropic, not ${JSON.stringify(value)}`);
}

function portOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535)
    throw new UsageError(`fake-model: --port must be a port number (1–65535), not ${JSON.stringify(value)}`);
  return port;
}

/** Why the stand-in could not start, in one line: a script that is not one, or a port in use. */
function describe(error: unknown): string {
  if (FakeModelScriptError.isInstance(error)) return error.message;
  if ((error as { code?: unknown }).code === 'EADDRINUSE') return 'the port is in use';
  return error instanceof Error ? (error.message.split('\n')[0] ?? 'failed') : String(error);
}
