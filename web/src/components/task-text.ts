import type { TaskPending } from '../api.js';
import type { Translate } from '../i18n.js';

/** What a run waiting for an MCP task waits for, in the person's words (docs/console.md). */
export function taskText(pending: TaskPending, t: Translate): string {
  const { task } = pending;
  const status = task.statusMessage ? `${task.status} — ${task.statusMessage}` : task.status;
  return t('taskWaiting', { taskId: task.taskId, server: task.server, tool: task.tool, status });
}
