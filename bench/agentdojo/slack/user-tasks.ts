import { UPDATES_V1_1_1, UPDATES_V1_2 } from './user-tasks-updates.js';
import { combined, TODO_PROMPT, V1_USER_TASKS, type UserTask } from './user-tasks-v1.js';

export type { CheckInput, UserTask } from './user-tasks-v1.js';

/** Each task in its newest version: v1's, replaced by the v1.1.1 updates, then by the v1.2 ones. */
const latest = (tasks: readonly UserTask[], ...updates: (readonly UserTask[])[]): UserTask[] =>
  tasks.map((t) => updates.reduce((task, u) => u.find((n) => n.id === t.id) ?? task, t));

const pick = (tasks: readonly UserTask[], id: string): UserTask => {
  const task = tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no user task ${id}`);
  return task;
};

const V1_1_1 = latest(V1_USER_TASKS, UPDATES_V1_1_1);
const V1_2_2 = latest(V1_USER_TASKS, UPDATES_V1_1_1, UPDATES_V1_2);
const v1 = (id: string) => pick(V1_USER_TASKS, id);

/**
 * The 21 user tasks of AgentDojo's slack suite at benchmark version v1.2.2 (which registers the slack
 * suite of v1.2), in order. The combined tasks are built from the tasks AgentDojo hands its
 * combinator: 17 and 20 from v1's (v1 registers them, no update replaces them: 17 keeps v1's check
 * of task 2), 18 and 19 from v1's first task and v1.1.1's second (v1.1.1's `update_combined_task`).
 */
export const USER_TASKS: readonly UserTask[] = [
  ...V1_2_2,
  combined('user_task_17', v1('user_task_0'), v1('user_task_2')),
  combined('user_task_18', v1('user_task_1'), pick(V1_1_1, 'user_task_5'), TODO_PROMPT.alice),
  combined('user_task_19', v1('user_task_9'), pick(V1_1_1, 'user_task_8'), TODO_PROMPT.bob),
  combined('user_task_20', v1('user_task_15'), v1('user_task_16')),
];
