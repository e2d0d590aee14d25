import { canaryCandidates } from '../suite-data.js';
import { injectionVectors, loadEnvironment } from './environment.js';
import { runTravelTool } from './tools.js';
import type { UserTask } from './user-tasks.js';

/** The injection vectors a user task's ground truth reads (AgentDojo's `get_injection_candidates`). */
export function injectionCandidates(task: UserTask): string[] {
  return canaryCandidates(injectionVectors(), loadEnvironment, (env) => task.groundTruth(env), runTravelTool);
}
