import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EVAL_USAGE } from './eval-usage.js';
import { SERVE_USAGE } from './serve-usage.js';

/**
 * Per-command help (`agent-runtime COMMAND --help`, exit 0): what the command does, its arguments and
 * its options. `serve` has its own, longer text (serve-usage.ts). docs/cli.md has the details.
 */

const DB =
  '  --db URL            the store (default: env AGENT_RUNTIME_DB, else sqlite:.agent-runtime/runtime.db)';
const JSON_OUT =
  '  --json              the run summary as one JSON line on stdout (progress stays on stderr)';
const EXTEND = [
  '  --guards MODULE     user guards: a module exporting guards made with defineGuard (repeatable)',
  '  --tools MODULE      a module exporting local tools (defineTool) and builtins (defineBuiltin) (repeatable)',
].join('\n');
const DRIVE = [
  '  --model M           <provider>:<model id> or scripted:FILE; overrides the model from here on',
  EXTEND,
  '  --trace FILE        append every trace event as a JSON line (file mode 0600)',
  '  --durability D      normal (default) or strict (SQLite synchronous=FULL)',
  DB,
  JSON_OUT,
].join('\n');
const EXPECT =
  '  --expect ID         only if the run still waits for pending item ID (else exit 4, nothing changed)';

/** The help text of each command, by name. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  run: `usage: agent-runtime run FLOW.yaml (--input TEXT | --input-json JSON|@file) [options]

Starts a run of the flow and drives it until it completes, fails or suspends for a person. The flow is
checked first as \`validate\` checks it (its MCP servers are asked for their tools): a flow validate
refuses, or a model that cannot be resolved, exits 2 and stores no run. A streaming model's text is
shown live on stderr. Ctrl-C stops the run cleanly (exit 130): it stays running, and
\`agent-runtime resume RUN_ID\` continues it.

  --input TEXT        the run input {"text": TEXT}
  --input-json J      a structured input: inline JSON or @file
  --thread ID         a message to thread ID: a new run with the thread's earlier turns (docs/threads.md)
${DRIVE}`,
  approve: `usage: agent-runtime approve RUN_ID [--comment TEXT] [--args JSON] [options]

Approves the pending write of a suspended run and continues it. When the tool's approval policy needs
several approvers, each approval is recorded and the run waits until enough different people approved.

  --comment TEXT      recorded with the decision
  --args JSON         approve edited arguments (a JSON object); they go through the guards again
${EXPECT}
${DRIVE}`,
  reject: `usage: agent-runtime reject RUN_ID [--comment TEXT] [options]

Declines the pending write of a suspended run (the comment reaches the model) and continues it.

  --comment TEXT      recorded with the decision
${EXPECT}
${DRIVE}`,
  answer: `usage: agent-runtime answer RUN_ID TEXT [options]
       agent-runtime answer RUN_ID --decline|--cancel [options]

Answers the pending follow-up question of a suspended run and continues it. A question of an MCP
server (elicitation, docs/mcp.md): TEXT is its form's fields as a JSON object ('{}' takes the
defaults), or for a link any text once done; --decline and --cancel refuse it.

  --decline           decline the MCP server's question
  --cancel            cancel the MCP server's question
${EXPECT}
${DRIVE}`,
  say: `usage: agent-runtime say RUN_ID TEXT [--db URL] [--json]

Adds a person's words to a running or suspended run (steering, docs/approvals.md): the message is kept
in the store at once, and the run reads it at the start of its next model round, as the user's words,
in whatever process drives it; a suspended run reads it once it goes on. Exit 4 when the run has ended
or 20 messages already wait unread, 2 for an unknown run or a text empty or over 4000 characters.

${DB}
  --json              the kept message as one JSON line on stdout`,
  resume: `usage: agent-runtime resume RUN_ID [options]

Continues a run left running by a process that died (once its lease expired).

${DRIVE}`,
  retry: `usage: agent-runtime retry RUN_ID [--model M] [options]

Takes a failed run up again in the node that failed (exit 4 when it has not failed).

${DRIVE}`,
  cancel: `usage: agent-runtime cancel RUN_ID [--trace FILE] [--db URL] [--json]

Cancels a run that has not ended.

  --trace FILE        append the trace events of this command as JSON lines
${DB}
${JSON_OUT}`,
  status: `usage: agent-runtime status RUN_ID [--db URL] [--json]

Shows one run (exit code as for the run's status: 0, 1 or 3).

${DB}
${JSON_OUT}`,
  runs: `usage: agent-runtime runs [--status S] [--db URL] [--json]

Lists runs, newest first.

  --status S          only runs with status running, suspended, completed, failed or cancelled
${DB}
  --json              the list as one JSON line on stdout`,
  trace: `usage: agent-runtime trace RUN_ID [--db URL] [--json]

Prints a run's trace events, each tool result previewed on one line.

${DB}
  --json              one JSON line per event on stdout`,
  evidence: `usage: agent-runtime evidence RUN_ID [EVIDENCE_ID] [--db URL] [--json]

Lists a run's evidence records, or shows one with its full payload.

${DB}
  --json              the list or the record as JSON on stdout`,
  validate: `usage: agent-runtime validate FLOW.yaml [--offline] [--tools MODULE]... [--guards MODULE]... [--json]

Checks a flow and prints every problem, one per line (exit 0 when valid, else 2). The tools of the
--tools modules count as known tools, as for run.

  --offline           do not connect to the flow's MCP servers (tool names are not checked)
${EXTEND}
  --json              also print {file, valid, problems, warnings, flow} on stdout, with each node's output schemas`,
  init: `usage: agent-runtime init [DIR]

Writes a starter project into DIR (default: the current folder): a flow, a small MCP server, a
scripted model, a test, a tokens file and a package.json. Existing files are kept; a symbolic link
among the files it would write is refused (exit 2). Then: npm install.`,
  'fake-model': `usage: agent-runtime fake-model --script FILE [--kind openai|anthropic] [--port N] [--model ID]... [--key KEY] [--follow-next-steps]

A stand-in model for tests without a key: an OpenAI Chat Completions (default) or Anthropic Messages
API on 127.0.0.1 that answers the i-th request with turn i of FILE (a scripted-model turns file) and
refuses what the real service refuses (bad messages, tool pairing, an unknown --model, a wrong key).
Prints {url, key, kind} on stdout and the environment to set on stderr; serves until Ctrl-C.

  --script FILE   the turns: {turns: [{text?, calls: [{tool, args}]}]}
  --kind K        openai (default) or anthropic
  --port N        the loopback port (default: any free one)
  --model ID      a model id served (repeatable; default: any)
  --key KEY       the API key requests must carry (default sk-<kind>-test)
  --follow-next-steps
                  follow the runtime's next steps besides the script: ask for approval when a
                  write is gated, make the gated call again once approved, repeat a call that did
                  not execute (the script holds only the calls meant)`,
  serve: SERVE_USAGE,
  eval: EVAL_USAGE,
  chat: `usage: agent-runtime chat FLOW.yaml [--thread ID] [--model M] [--tools MODULE]... [--guards MODULE]... [--db URL]

A conversation with the flow in the terminal. Each line you type is a message to the thread (a new run,
or the answer to the question the last run asks); the model's text streams as it is written, each tool
call shows as one line with its outcome, and an approval is asked inline with the exact call. /exit,
Ctrl-D or Ctrl-C leaves (exit 0, or 130 for Ctrl-C): the thread stays, and chat --thread ID takes it
up again (a run left running is resumed, a waiting approval asked again). Needs a terminal: without one
it exits 2 (from a script use run FLOW --thread ID --input TEXT). docs/threads.md.

  --thread ID         the thread to continue or start (default: a new chat-XXXXXXXX id, printed)
  --model M           <provider>:<model id> or scripted:FILE; overrides the flow's model
${EXTEND}
${DB}`,
  fork: `usage: agent-runtime fork RUN_ID --at SEQ [--model M] [--flow F] [options]

Starts a new run whose state is RUN_ID's after trace event SEQ (evidence, approvals, outputs) and drives
it from there; nothing before SEQ is executed again. SEQ must follow a tool call that ended its round
(a refusal names the nearest valid ones). docs/evals.md, "Fork".

  --at SEQ            the event to continue after (see \`trace RUN_ID\`)
  --flow F            continue with this version of the flow (same id)
${DRIVE}`,
  mcp: `usage: agent-runtime mcp login FLOW.yaml SERVER [--tenant T]
       agent-runtime mcp serve --flows DIR [--console-url URL] [--db URL] [--tools M] [--guards M]
       agent-runtime mcp complete FLOW.yaml SERVER ARG [VALUE] (--prompt NAME | --template URI) [--context NAME=VALUE]...

Authorizes the runtime at the flow's HTTP MCP server SERVER (its entry has \`auth\`): prints the URL to
open, listens on a loopback redirect and stores the tokens encrypted (AGENT_RUNTIME_SECRET_KEY) for the
tenant (default: none, as CLI runs). docs/mcp.md, "Authorization".

\`mcp serve\` offers each flow under DIR as an MCP tool over stdio (Claude Desktop, Cursor, another
agent). A write the flow's gate holds is asked of the client when it takes elicitation (the local user
is the operator; by elicitation on the 2025 revisions, as input_required on 2026-07-28); otherwise the
call returns the run id, and run_status gives the result once the write
was approved (agent-runtime approve, or the console at --console-url). Logs go to stderr.
docs/mcp.md, "Serving flows as MCP tools".

\`mcp complete\` prints the values the flow's server SERVER suggests for argument ARG (what is typed so
far: VALUE) of a prompt or a resource template. docs/mcp.md, "Completions".

  --prompt NAME       the prompt whose argument it is
  --template URI      the resource template whose variable it is
  --context NAME=VALUE  an argument already given (repeatable)`,
  worker: `usage: agent-runtime worker --db postgres://… [--concurrency N] [--shutdown-timeout S] [options]

Drives runnable runs of a shared PostgreSQL store until SIGINT/SIGTERM.

  --db URL            a postgres:// store (or env AGENT_RUNTIME_DB)
  --concurrency N     runs driven at once (default 4)
  --shutdown-timeout S  seconds the runs get to suspend or end after SIGINT/SIGTERM (default 10)
${EXTEND}`,
};

/** The package's version, from its package.json (`agent-runtime --version`). */
export function packageVersion(): string {
  return packageRoot().manifest.version;
}

let root: { dir: string; manifest: { name: string; version: string } } | undefined;

/**
 * The package's folder (where its package.json and `templates/` ship) and its manifest: dist/src/cli →
 * three levels up; src/cli (the source, run by tests) → two. Looked up once, when first asked.
 */
export function packageRoot(): { dir: string; manifest: { name: string; version: string } } {
  if (root) return root;
  for (const up of ['../../..', '../..']) {
    const dir = resolve(import.meta.dirname, up);
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'g2rain-agent-runtime' && typeof manifest.version === 'string')
        return (root = { dir, manifest: { name: manifest.name, version: manifest.version } });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error('cannot find the package.json of g2rain-agent-runtime');
}
