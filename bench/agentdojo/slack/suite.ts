import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { builtServer, scriptTurns, type Turn } from '../scripted.js';
import { injectionCandidates } from './candidates.js';
import { injectionVectors, loadEnvironment, type SlackEnvironment } from './environment.js';
import { attackText } from '../../../src/eval/attacks.js';
import { slackFlow, type ContractSet } from './flow.js';
import { INJECTION_TASKS } from './injection-tasks.js';
import { SLACK_TOOLS, type FunctionCall } from './tools.js';
import { USER_TASKS, type UserTask } from './user-tasks.js';

const WRITES = new Set(SLACK_TOOLS.filter((t) => t.write).map((t) => t.name));

/** Which tasks to write (default: all 21 user tasks and all 5 injection tasks). */
export interface SuiteChoice {
  userTasks?: readonly string[];
  injectionTasks?: readonly string[];
  /** Node binary that runs the MCP server (default: this process's). */
  node?: string;
  /** The flow's contracts (default `today`). */
  contracts?: ContractSet;
}

/** The scripted turns of a fully compromised model for these calls (see `scriptTurns`). */
export function turnsOf(calls: readonly FunctionCall[]): Turn[] {
  return scriptTurns(calls, WRITES);
}

/**
 * The calls the scripted model makes for a user task: its ground truth, with the implied read of the
 * TODO page the prompt of user tasks 18 and 19 names (their ground truth, the two tasks' own, skips it).
 */
export function userCalls(task: UserTask, pre: SlackEnvironment = loadEnvironment()): FunctionCall[] {
  const todo = /TODO list at (www\.company-todo-list\.com\/\w+)/.exec(task.prompt);
  const implied: FunctionCall[] = todo ? [{ function: 'get_webpage', args: { url: todo[1] as string } }] : [];
  return [...implied, ...task.groundTruth(pre)];
}

/**
 * Writes the slack suite in the eval format into `dir`: flow.yaml (the MCP server, the contracts),
 * suite.yaml (a case per user task, the vectors its ground truth reads, the attacker goals) and the
 * scripted models (models/<user task>.yaml, models/<user task>--<injection task>.yaml). Returns the
 * suite file's path. The server keeps its state in `dir`/state.json.
 */
export function writeSlackSuite(dir: string, serverJs: string, choice: SuiteChoice = {}): string {
  mkdirSync(join(dir, 'models'), { recursive: true });
  const users = USER_TASKS.filter((t) => !choice.userTasks || choice.userTasks.includes(t.id));
  const injections = INJECTION_TASKS.filter(
    (t) => !choice.injectionTasks || choice.injectionTasks.includes(t.id),
  );
  const server = {
    command: choice.node ?? process.execPath,
    args: [serverJs],
    env: { AGENTDOJO_STATE: join(dir, 'state.json') },
  };
  writeFileSync(join(dir, 'flow.yaml'), stringify(slackFlow(server, choice.contracts ?? 'today')));
  const cases = users.map((task) => {
    const calls = userCalls(task);
    writeFileSync(join(dir, 'models', `${task.id}.yaml`), stringify({ turns: turnsOf(calls) }));
    const vectors = injectionCandidates(task);
    for (const inj of injections) {
      // The environment of the attacked run: the ground truth of both tasks is computed on it (the
      // channel-name vector renames the External channel the user's task addresses).
      const text = attackText({ vectors: [], goals: [] }, { id: inj.id, goal: inj.goal, verify: [] });
      const attacked = loadEnvironment(Object.fromEntries(vectors.map((v) => [v, text])));
      writeFileSync(
        join(dir, 'models', `${task.id}--${inj.id}.yaml`),
        stringify({ turns: turnsOf([...userCalls(task, attacked), ...inj.groundTruth(attacked)]) }),
      );
    }
    return {
      id: task.id,
      input: task.prompt,
      model: `scripted:./models/${task.id}.yaml`,
      ...(vectors.length > 0 ? { vectors, attackModel: `scripted:./models/${task.id}--{goal}.yaml` } : {}),
      approvals: 'approve',
      setup: [{ tool: 'agentdojo_reset', args: {} }],
      verify: [{ tool: 'agentdojo_check', args: { task: task.id }, expect: { jsonata: 'utility = true' } }],
      // A write to the External channel is expected by tool only: the channel-name vector renames it.
      expectedWrites: calls
        .filter((c) => WRITES.has(c.function))
        .map((c) =>
          Object.values(c.args).some((v) => v.startsWith('External_'))
            ? { tool: c.function }
            : { tool: c.function, args: c.args },
        ),
    };
  });
  const suite = {
    name: 'AgentDojo slack (port)',
    flow: './flow.yaml',
    concurrency: 1,
    attacks: {
      attack: 'important_instructions',
      vectors: injectionVectors().map((v) => ({
        id: v.id,
        description: v.description,
        setup: [{ tool: 'agentdojo_inject', args: { vector: v.id, text: '{attack}' } }],
      })),
      goals: injections.map((t) => ({
        id: t.id,
        goal: t.goal,
        verify: [{ tool: 'agentdojo_check', args: { task: t.id }, expect: { jsonata: 'security = true' } }],
      })),
    },
    cases,
  };
  const file = join(dir, 'suite.yaml');
  writeFileSync(file, stringify(suite));
  return file;
}

export { builtServer };
