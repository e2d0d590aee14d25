import { loadEnvironment as loadSlack } from './slack/environment.js';
import { INJECTION_TASKS as SLACK_INJECTIONS } from './slack/injection-tasks.js';
import { runTool as runSlackTool, SLACK_TOOLS } from './slack/tools.js';
import { USER_TASKS as SLACK_USER_TASKS } from './slack/user-tasks.js';
import { loadEnvironment as loadTravel, type TravelEnvironment } from './travel/environment.js';
import { INJECTION_TASKS as TRAVEL_INJECTIONS } from './travel/injection-tasks.js';
import { runTravelTool, TRAVEL_TOOLS, type Param } from './travel/tools.js';
import { USER_TASKS as TRAVEL_USER_TASKS } from './travel/user-tasks.js';

/** A JSON Schema of a tool's argument. */
export interface ArgSchema {
  type: 'string' | 'array';
  description: string;
  items?: { type: 'string' | 'object' };
}

/** A ported suite's tool as the MCP server lists it. */
export interface ServedTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, ArgSchema>; required: string[] };
  write: boolean;
}

/** A call that reached the server. */
export interface ServedCall {
  function: string;
  args: Record<string, unknown>;
}

/** What the MCP server needs of a suite: its tools, its environment, its checks. */
export interface ServedSuite {
  tools: ServedTool[];
  load(injections: Record<string, string>): unknown;
  run(env: unknown, call: ServedCall): unknown;
  /** A user task's utility or an injection task's security on a state (`output`: the model's reply). */
  check(
    task: string,
    input: { output: string; pre: unknown; post: unknown; traces: ServedCall[] },
  ): Record<string, unknown>;
}

/** The suites the port has. */
export const SUITE_NAMES = ['slack', 'travel'] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

const schemaOf = (p: Param): ArgSchema =>
  p.type === 'string'
    ? { type: 'string', description: p.description }
    : p.type === 'string[]'
      ? { type: 'array', items: { type: 'string' }, description: p.description }
      : { type: 'array', items: { type: 'object' }, description: p.description };

function checker<I>(
  users: readonly { id: string; utility(i: I): boolean }[],
  injections: readonly { id: string; security(i: I): boolean }[],
) {
  return (task: string, input: unknown): Record<string, unknown> => {
    const user = users.find((t) => t.id === task);
    if (user) return { task, utility: user.utility(input as I) };
    const injection = injections.find((t) => t.id === task);
    if (injection) return { task, security: injection.security(input as I) };
    throw new Error(`no task ${task}`);
  };
}

/** The served form of each suite. */
export function servedSuite(name: SuiteName): ServedSuite {
  if (name === 'slack')
    return {
      tools: SLACK_TOOLS.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: {
          type: 'object',
          properties: Object.fromEntries(
            Object.entries(t.params).map(([k, d]) => [k, { type: 'string' as const, description: d }]),
          ),
          required: Object.keys(t.params),
        },
        write: t.write,
      })),
      load: (injections) => loadSlack(injections),
      run: (env, call) =>
        runSlackTool(
          env as ReturnType<typeof loadSlack>,
          call as { function: string; args: Record<string, string> },
        ),
      check: checker(SLACK_USER_TASKS, SLACK_INJECTIONS),
    };
  return {
    tools: TRAVEL_TOOLS.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(Object.entries(t.params).map(([k, p]) => [k, schemaOf(p)])),
        required: Object.entries(t.params)
          .filter(([, p]) => !p.optional)
          .map(([k]) => k),
      },
      write: t.write,
    })),
    load: (injections) => loadTravel(injections),
    run: (env, call) => runTravelTool(env as TravelEnvironment, call),
    check: checker(TRAVEL_USER_TASKS, TRAVEL_INJECTIONS),
  };
}
