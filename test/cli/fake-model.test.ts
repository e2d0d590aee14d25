import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, NODE } from '../acceptance/build.js';
import { World, builtinFlow, ensureBuilt } from './helpers/cli.js';

const TURNS = JSON.stringify({
  turns: [
    { text: 'Nothing to look up.', calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
  ],
});

/** `agent-runtime fake-model` as a user starts it: a child process, read until it prints where it listens. */
function startFake(w: World, args: string[]) {
  const child = spawn(NODE, [CLI, 'fake-model', ...args], { cwd: w.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const listening = new Promise<{ url: string; key: string; kind: string }>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line) as never));
    void exited.then((code) => reject(new Error(`fake-model exited ${String(code)}: ${stderr}`)));
  });
  // A start that fails is awaited through `exited` instead; the rejection is not an unhandled one.
  listening.catch(() => undefined);
  return { child, listening, exited, stderr: () => stderr };
}

/**
 * The stand-in model users can test with (docs/testing.md): the CLI command serves a strict OpenAI or
 * Anthropic API on loopback from a turns file, and a run of the CLI talks to it over HTTP.
 */
describe('cli: fake-model', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  const worlds: World[] = [];
  afterEach(async () => {
    await Promise.all(worlds.splice(0).map((w) => w.dispose()));
  });

  it.each(['openai', 'anthropic'] as const)(
    'serves %s from a turns file; a run completes through it over HTTP',
    async (kind) => {
      const w = new World();
      worlds.push(w);
      w.write('turns.json', TURNS);
      w.write('flow.yaml', builtinFlow());
      // Following the next steps changes nothing where no observation asks for a step.
      const follow = kind === 'anthropic' ? ['--follow-next-steps'] : [];
      const fake = startFake(w, [
        '--script',
        'turns.json',
        '--kind',
        kind,
        '--model',
        'test-model',
        ...follow,
      ]);
      try {
        const { url, key } = await fake.listening;
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
        expect(fake.stderr()).toContain(kind === 'openai' ? 'OPENAI_BASE_URL=' : 'ANTHROPIC_BASE_URL=');
        const prefix = kind === 'openai' ? 'OPENAI' : 'ANTHROPIC';
        const env = {
          [`${prefix}_BASE_URL`]: url,
          [`${prefix}_API_KEY`]: key,
          AGENT_RUNTIME_MODEL_MAX_RETRIES: '0',
        };
        const done = await w.cli(['run', 'flow.yaml', '--input', 'x', '--model', `${kind}:test-model`], {
          env,
        });
        expect(done.code, done.stderr).toBe(0);
        // Strict as the service: another model id is refused with the provider's 404.
        const wrong = await w.cli(['run', 'flow.yaml', '--input', 'x', '--model', `${kind}:other`], { env });
        expect(wrong.code).toBe(1);
        expect(wrong.stderr).toMatch(/404/);
      } finally {
        fake.child.kill('SIGTERM');
        expect(await fake.exited).toBe(0);
      }
    },
    120_000,
  );

  it('names what is wrong with its flags (exit 2)', async () => {
    const w = new World();
    worlds.push(w);
    w.write('bad.yaml', 'turns: 3\n');
    const cases: [string[], RegExp][] = [
      [[], /missing --script FILE/],
      [['--script', 'none.yaml'], /--script none\.yaml: no such file/],
      [['--script', 'bad.yaml'], /bad\.yaml is not a scripted-model file/],
      [['--script', 'bad.yaml', '--kind', 'gemini'], /--kind must be openai or anthropic/],
      [['--script', 'bad.yaml', '--port', 'x'], /--port must be a port number/],
      [['--scrip', 'a'], /fake-model: .*--scrip/],
    ];
    for (const [args, message] of cases) {
      const result = startFake(w, args);
      expect(await result.exited, args.join(' ')).toBe(2);
      expect(result.stderr()).toMatch(message);
      expect(result.stderr()).not.toMatch(/\n\s+at /);
    }
  });
});
