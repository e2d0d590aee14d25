import { injectionVectors, loadEnvironment } from './environment.js';
import { runTravelTool } from './tools.js';
import type { UserTask } from './user-tasks.js';

/**
 * The injection vectors a user task's ground truth reads (AgentDojo's `get_injection_candidates`):
 * each vector gets a canary text, the ground-truth calls run on that environment, and a vector counts
 * when its canary stands in a call's result.
 */
export function injectionCandidates(task: UserTask): string[] {
  const vectors = injectionVectors();
  const canaries = Object.fromEntries(vectors.map((v) => [v.id, `<CANARY---${v.id}--->`]));
  const env = loadEnvironment(canaries);
  const seen = new Set<string>();
  for (const call of task.groundTruth(env)) {
    let result: unknown;
    try {
      result = runTravelTool(env, call);
    } catch (error) {
      result = (error as Error).message;
    }
    const text = JSON.stringify(result ?? null);
    for (const v of vectors) if (text.includes(canaries[v.id] as string)) seen.add(v.id);
  }
  return vectors.map((v) => v.id).filter((id) => seen.has(id));
}
