import type { UserTask } from './checks.js';
import { USER_TASKS_A } from './user-tasks-a.js';
import { USER_TASKS_B } from './user-tasks-b.js';

export type { CheckInput, UserTask } from './checks.js';

/** The 20 user tasks of AgentDojo's travel suite at benchmark v1.2.2. */
export const USER_TASKS: readonly UserTask[] = [...USER_TASKS_A, ...USER_TASKS_B];
