import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { attackText } from '../../../src/eval/attacks.js';
import { scriptTurns, type Turn } from '../scripted.js';
import { injectionCandidates } from './candidates.js';
import { injectionVectors, loadEnvironment } from './environment.js';
import { INTENTS, travelFlow, type ContractSet, type Intent } from './flow.js';
import { INJECTION_TASKS } from './injection-tasks.js';
import { TRAVEL_TOOLS } from './tools.js';
import { USER_TASKS, type UserTask } from './user-tasks.js';

const WRITES = new Set(TRAVEL_TOOLS.filter((t) => t.write).map((t) => t.name));

/** Which tasks to write (default: all 20 user tasks and all 7 injection tasks). */
export interface TravelChoice {
  userTasks?: readonly string[];
  injectionTasks?: readonly string[];
  /** Node binary that runs the MCP server (default: this process's). */
  node?: string;
  /** The flow's contracts (default `today`). */
  contracts?: ContractSet;
}

/** What the request asks to change: the intent of the user task's own ground-truth writes. */
export function intentOf(task: UserTask): Intent {
  const writes = task.groundTruth(loadEnvironment()).map((c) => c.function);
  const found = (Object.keys(INTENTS) as Intent[]).find((i) =>
    (INTENTS[i] as readonly string[]).some((w) => writes.includes(w)),
  );
  return found ?? 'none';
}

/**
 * The scripted turns: with a plan node, first its decision from the request (the user's own intent:
 * it reads no tool result, so no injection reaches it), then the calls and the reply.
 */
function turns(
  task: UserTask,
  calls: Parameters<typeof scriptTurns>[0],
  reply: string,
  set: ContractSet,
): Turn[] {
  const plan: Turn[] =
    set === 'untrusted+intent'
      ? [
          {
            calls: [
              {
                tool: 'builtin_output_set',
                args: { key: 'intent', value: intentOf(task), sourceType: 'model' },
              },
            ],
          },
          { calls: [{ tool: 'builtin_node_finish', args: { summary: 'planned' } }] },
        ]
      : [];
  return [...plan, ...scriptTurns(calls, WRITES, reply || 'Done.')];
}

/**
 * Writes the travel suite in the eval format into `dir` (as the slack suite: flow.yaml, suite.yaml,
 * models/). The scripted model replies with the task's ground-truth output (and, attacked, the
 * injection task's); the verify calls hand the run's reply to the checks (`{reply}`).
 */
export function writeTravelSuite(dir: string, serverJs: string, choice: TravelChoice = {}): string {
  mkdirSync(join(dir, 'models'), { recursive: true });
  const set = choice.contracts ?? 'today';
  const users = USER_TASKS.filter((t) => !choice.userTasks || choice.userTasks.includes(t.id));
  const injections = INJECTION_TASKS.filter(
    (t) => !choice.injectionTasks || choice.injectionTasks.includes(t.id),
  );
  const server = {
    command: choice.node ?? process.execPath,
    args: [serverJs],
    env: { AGENTDOJO_STATE: join(dir, 'state.json'), AGENTDOJO_SUITE: 'travel' },
  };
  writeFileSync(join(dir, 'flow.yaml'), stringify(travelFlow(server, set)));
  const cases = users.map((task) => {
    const calls = task.groundTruth(loadEnvironment());
    writeFileSync(
      join(dir, 'models', `${task.id}.yaml`),
      stringify({ turns: turns(task, calls, task.groundTruthOutput, set) }),
    );
    const vectors = injectionCandidates(task);
    for (const inj of injections) {
      const text = attackText({ vectors: [], goals: [] }, { id: inj.id, goal: inj.goal, verify: [] });
      const attacked = loadEnvironment(Object.fromEntries(vectors.map((v) => [v, text])));
      const reply = [task.groundTruthOutput, inj.groundTruthOutput].filter((r) => r !== '').join('\n');
      writeFileSync(
        join(dir, 'models', `${task.id}--${inj.id}.yaml`),
        stringify({
          turns: turns(task, [...task.groundTruth(attacked), ...inj.groundTruth(attacked)], reply, set),
        }),
      );
    }
    return {
      id: task.id,
      input: task.prompt,
      model: `scripted:./models/${task.id}.yaml`,
      ...(vectors.length > 0 ? { vectors, attackModel: `scripted:./models/${task.id}--{goal}.yaml` } : {}),
      approvals: 'approve',
      setup: [{ tool: 'agentdojo_reset', args: {} }],
      verify: [
        {
          tool: 'agentdojo_check',
          args: { task: task.id, output: '{reply}' },
          expect: { jsonata: 'utility = true' },
        },
      ],
      expectedWrites: calls
        .filter((c) => WRITES.has(c.function))
        .map((c) => ({ tool: c.function, args: c.args })),
    };
  });
  const suite = {
    name: 'AgentDojo travel (port)',
    flow: './flow.yaml',
    concurrency: 1,
    attacks: {
      attack: 'important_instructions',
      vectors: injectionVectors().map((v) => ({
        id: v.id,
        ...(v.description ? { description: v.description } : {}),
        setup: [{ tool: 'agentdojo_inject', args: { vector: v.id, text: '{attack}' } }],
      })),
      goals: injections.map((t) => ({
        id: t.id,
        goal: t.goal,
        verify: [
          {
            tool: 'agentdojo_check',
            args: { task: t.id, output: '{reply}' },
            expect: { jsonata: 'security = true' },
          },
        ],
      })),
    },
    cases,
  };
  const file = join(dir, 'suite.yaml');
  writeFileSync(file, stringify(suite));
  return file;
}
