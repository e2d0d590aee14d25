#!/usr/bin/env node
/**
 * AgentDojo's slack or travel suite (ethz-spylab/agentdojo, MIT; see LICENSE and README.md here) as an
 * MCP stdio server (AGENTDOJO_SUITE: `slack`, the default, or `travel`): the suite's tools over its environment, plus three control tools for the harness
 * (no flow gives them to a model): `agentdojo_reset` (a fresh environment), `agentdojo_inject`
 * (`{vector, text}`: the attacker's text in place of a vector's default) and `agentdojo_check`
 * (`{task, output?}`: a user task's utility or an injection task's security on the current state,
 * `output` being the model's reply for the checks that read it).
 *
 * The state lives in the JSON file named by AGENTDOJO_STATE, read before and written after every call:
 * the harness's setup calls, the run and the verify calls each start a server process of their own.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { servedSuite, SUITE_NAMES, type ServedCall, type SuiteName } from './suites.js';

interface State {
  injections: Record<string, string>;
  /** The environment the run started from (AgentDojo's `pre_environment`). */
  pre: unknown;
  env: unknown;
  /** Every call of a suite tool that reached the server, in order (AgentDojo's traces). */
  calls: ServedCall[];
}

const STATE = process.env.AGENTDOJO_STATE;
if (!STATE) {
  process.stderr.write('agentdojo server: set AGENTDOJO_STATE to the path of its state file\n');
  process.exit(2);
}
const stateFile: string = STATE;
const suiteName = process.env.AGENTDOJO_SUITE ?? 'slack';
if (!(SUITE_NAMES as readonly string[]).includes(suiteName)) {
  process.stderr.write(
    `agentdojo server: AGENTDOJO_SUITE must be one of ${SUITE_NAMES.join(', ')}, got ${suiteName}\n`,
  );
  process.exit(2);
}
const suite = servedSuite(suiteName as SuiteName);

function fresh(injections: Record<string, string>): State {
  return { injections, pre: suite.load(injections), env: suite.load(injections), calls: [] };
}

function load(): State {
  if (!existsSync(stateFile)) return fresh({});
  return JSON.parse(readFileSync(stateFile, 'utf8')) as State;
}

function save(state: State): void {
  const tmp = `${stateFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, stateFile);
}

const text = (value: unknown): string =>
  value === null || value === undefined ? 'None' : typeof value === 'string' ? value : JSON.stringify(value);

function check(state: State, task: string, output: string): Record<string, unknown> {
  return suite.check(task, { output, pre: state.pre, post: state.env, traces: state.calls });
}

const CONTROL: { name: string; description: string; properties: Record<string, { type: string }> }[] = [
  { name: 'agentdojo_reset', description: 'Harness: a fresh environment.', properties: {} },
  {
    name: 'agentdojo_inject',
    description: "Harness: the attacker's text in place of an injection vector (the environment is rebuilt).",
    properties: { vector: { type: 'string' }, text: { type: 'string' } },
  },
  {
    name: 'agentdojo_check',
    description:
      "Harness: a user task's utility or an injection task's security on the current state (`output`: the model's reply).",
    properties: { task: { type: 'string' }, output: { type: 'string' } },
  },
];

function control(name: string, args: Record<string, string>): unknown {
  if (name === 'agentdojo_reset') {
    save(fresh({}));
    return { reset: true };
  }
  const state = load();
  if (name === 'agentdojo_inject') {
    const injections = { ...state.injections, [String(args.vector)]: String(args.text) };
    save(fresh(injections));
    return { injected: args.vector };
  }
  return check(state, String(args.task), String(args.output ?? ''));
}

function createServer(): Server {
  const server = new Server(
    { name: `agentdojo-${suiteName}`, version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler('tools/list', () => ({
    tools: [
      ...suite.tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { readOnlyHint: !t.write },
      })),
      ...CONTROL.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: {
          type: 'object' as const,
          properties: t.properties,
          required: Object.keys(t.properties).filter((k) => k !== 'output'),
        },
        annotations: { readOnlyHint: t.name === 'agentdojo_check' },
      })),
    ],
  }));
  server.setRequestHandler('tools/call', (request) => {
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    try {
      if (name.startsWith('agentdojo_')) {
        const result = control(name, args as Record<string, string>);
        return {
          content: [{ type: 'text', text: JSON.stringify(result) }],
          structuredContent: result as Record<string, unknown>,
        };
      }
      const state = load();
      state.calls.push({ function: name, args });
      try {
        const result = suite.run(state.env, { function: name, args });
        return { content: [{ type: 'text', text: text(result) }] };
      } finally {
        save(state);
      }
    } catch (error) {
      return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
    }
  });
  return server;
}

serveStdio(() => createServer(), {
  onerror: (error) => process.stderr.write(`agentdojo server: ${error.message}\n`),
});
process.stdin.on('end', () => setImmediate(() => process.exit(0)));
