import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { loadFlow, type LoadedFlow } from '../flow/load.js';
import { resolveRunInput } from '../flow/input.js';
import { createStderrLogger } from '../log/logger.js';
import { absolutizeModel } from '../model/resolve.js';
import { RunError } from '../domain/run-error.js';
import { createRuntime, type Runtime } from '../runtime/create.js';
import type { RunSummary } from '../records/summary.js';
import { resolveDbUrl } from '../store/open.js';
import { EXTENSIONS, UsageError, parse, str } from './args.js';
import { ChatRenderer } from './chat-render.js';
import { cliDb, cliInvocation, continueFlags } from './context.js';
import { builtinNames, loadExtensions, runtimeExtensions, toolNames } from './extensions.js';
import { failureOf } from './failure.js';
import { approvalText } from './interactive.js';
import { preflight } from './preflight.js';
import { shellWord } from './text.js';
import { visible, visibleDeep } from './visible.js';

const THREAD_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * `chat FLOW.yaml [--thread ID] [--model M] [--db URL] [--tools MODULE] [--guards MODULE]` (docs/cli.md#chat): a conversation in the
 * terminal. Each line typed is a message to the thread (docs/threads.md) — a new run, or the answer to
 * the question the last run asks; the model's text streams as it is written, each tool call is one
 * line with its outcome, an approval is asked inline (the exact call shown). `/exit`, Ctrl-D and
 * Ctrl-C leave; the thread and its runs stay as committed, and `chat FLOW --thread ID` takes them up
 * again (a run left running is resumed, a waiting approval asked again). Needs a terminal: without
 * one it exits 2 (scripts use `run FLOW --thread ID --input TEXT`).
 */
export async function chat(argv: string[]): Promise<number> {
  const parsed = parse(
    'chat',
    argv,
    {
      ...EXTENSIONS,
      db: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      model: { type: 'string' },
      thread: { type: 'string' },
    },
    { min: 1, max: 1, names: 'FLOW.yaml' },
  );
  // The modules first: a wrong --tools / --guards is reported as for run, terminal or not.
  const extensions = await loadExtensions(parsed);
  if (!process.stdin.isTTY || !process.stdout.isTTY)
    throw new UsageError(
      'chat: needs a terminal (stdin and stdout are not both a TTY); from a script, send each message with `run FLOW --thread ID --input TEXT`',
    );
  const given = str(parsed, 'thread');
  if (given !== undefined && !THREAD_ID.test(given))
    throw new UsageError(
      `chat: --thread ${JSON.stringify(given)} must be 1 to 128 letters, digits or . _ : -`,
    );
  const file = parsed.positionals[0] as string;
  const loaded = await loadFlow(resolve(file), { knownTools: toolNames(extensions) });
  const cliModel = str(parsed, 'model');
  const model =
    cliModel !== undefined
      ? absolutizeModel(cliModel, process.cwd())
      : loaded.flow.model !== undefined
        ? absolutizeModel(loaded.flow.model, loaded.dir ?? process.cwd())
        : undefined;
  await preflight(resolve(file), loaded, model, toolNames(extensions), builtinNames(extensions));
  const db = cliDb(parsed);
  const thread = given ?? `chat-${randomBytes(4).toString('hex')}`;
  const write = (text: string) => void process.stdout.write(text);
  const renderer = new ChatRenderer(write);
  const followed = new Set<string>();
  const runtime = createRuntime({
    store: resolveDbUrl({ db }),
    ...runtimeExtensions(extensions),
    logger: createStderrLogger({ level: 'warn', write: (line) => void process.stderr.write(line) }),
    onEvent: (event) => {
      if (!followed.has(event.runId)) {
        followed.add(event.runId);
        runtime.deltas(event.runId, renderer.onDelta);
      }
      renderer.onEvent(event);
    },
  });
  const session = new ChatSession(runtime, loaded, thread, model, write);
  try {
    const left = await session.run();
    const again = `${cliInvocation()} chat ${shellWord(file)} --thread ${thread}${continueFlags(db)}`;
    write(`\nleft thread ${thread}; continue with: ${again}\n`);
    return left === 'interrupted' ? 130 : 0;
  } finally {
    session.close();
    await runtime.close();
  }
}

/** One terminal conversation with a thread: reads lines, drives the runs, asks approvals. */
class ChatSession {
  readonly #rl: Interface;
  readonly #typed: string[] = [];
  readonly #waiting: ((line: string | null) => void)[] = [];
  #closed = false;
  #interrupted = false;
  /** The question the thread's last run asks: the next line answers it. */
  #question: string | null = null;

  constructor(
    private readonly runtime: Runtime,
    private readonly loaded: LoadedFlow,
    private readonly thread: string,
    private readonly model: string | undefined,
    private readonly write: (text: string) => void,
  ) {
    this.#rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    this.#rl.on('line', (line) => {
      const next = this.#waiting.shift();
      if (next) next(line);
      else this.#typed.push(line);
    });
    this.#rl.on('close', () => this.#end());
    // Ctrl-C: leave. A run being driven stops where it is committed; the thread takes it up again.
    this.#rl.on('SIGINT', () => {
      this.#interrupted = true;
      this.write('\n');
      void this.runtime.stopDriving();
      this.#end();
    });
  }

  /** Chats until `/exit`, Ctrl-D or Ctrl-C. */
  async run(): Promise<'exit' | 'interrupted'> {
    this.write(
      `chat with flow ${visible(this.loaded.flow.id)} in thread ${this.thread} (/exit or Ctrl-C leaves; the thread stays)\n`,
    );
    await this.#takeUp();
    for (;;) {
      if (this.#interrupted) return 'interrupted';
      const line = await this.#ask(this.#question !== null ? 'answer> ' : 'you> ');
      if (line === null) return this.#interrupted ? 'interrupted' : 'exit';
      const text = line.trim();
      if (text === '/exit') return 'exit';
      if (text === '') continue;
      this.#question = null;
      await this.#settle(async () =>
        this.runtime.start(this.loaded, {
          thread: this.thread,
          who: process.env.USER ?? null,
          input: await resolveRunInput(this.loaded.flow, { text, json: undefined }),
          ...(this.model ? { model: this.model } : {}),
        }),
      );
    }
  }

  close(): void {
    this.#rl.close();
  }

  /** Where the thread stands when the chat opens: its last words, a run to resume, a pending approval or question. */
  async #takeUp(): Promise<void> {
    const view = await this.runtime.thread(this.thread);
    if (!view) return;
    const said = view.messages.filter((m) => m.kind !== 'approval' && m.kind !== 'decision').slice(-4);
    if (said.length) this.write(`(${view.messages.length} earlier messages; the last ones:)\n`);
    for (const m of said)
      this.write(`${m.role === 'user' ? 'you' : 'assistant'}> ${visible(m.text, { keepLines: true })}\n`);
    const last = view.runs.at(-1);
    if (!last) return;
    if (last.status === 'running') {
      this.write(`(resuming run ${last.runId}, left running)\n`);
      await this.#settle(() => this.runtime.resume(last.runId, this.model ? { model: this.model } : {}));
    } else if (last.status === 'suspended') await this.#settle(() => Promise.resolve(last));
  }

  /** Drives one step and then every approval it waits for; a question is left for the next line. */
  async #settle(step: () => Promise<RunSummary>): Promise<void> {
    let summary: RunSummary;
    try {
      summary = await step();
    } catch (error) {
      if (error instanceof RunError || error instanceof UsageError) {
        this.write(`${visible(failureOf(error).line)}\n`);
        return;
      }
      throw error;
    }
    while (!this.#interrupted && summary.status === 'suspended' && summary.suspension?.kind === 'APPROVAL') {
      this.write(approvalText(visibleDeep(summary.suspension.pending as Record<string, unknown>)));
      const yes = await this.#ask('Approve? [y/N] ');
      if (yes === null) return;
      const runId = summary.runId;
      const options = { who: process.env.USER ?? null, expect: summary.suspension.pending.id ?? undefined };
      summary = /^y(es)?$/i.test(yes.trim())
        ? await this.runtime.approve(runId, options)
        : await this.runtime.reject(runId, options);
    }
    if (summary.status === 'suspended' && summary.suspension?.kind === 'FOLLOW_UP') {
      const pending = summary.suspension.pending as { question?: unknown; options?: unknown };
      this.#question = typeof pending.question === 'string' ? pending.question : '';
      this.write(`assistant> ${visible(this.#question, { keepLines: true })}\n`);
      if (Array.isArray(pending.options))
        this.write(`  (${pending.options.map((o) => visible(String(o))).join(' / ')})\n`);
    } else if (summary.status === 'failed' || summary.status === 'cancelled')
      this.write(`(run ${summary.runId} ${summary.status}; the next message starts a new run)\n`);
  }

  #ask(prompt: string): Promise<string | null> {
    if (this.#interrupted) return Promise.resolve(null);
    this.write(prompt);
    const line = this.#typed.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#closed) return Promise.resolve(null);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #end(): void {
    this.#closed = true;
    for (const next of this.#waiting.splice(0)) next(null);
  }
}
