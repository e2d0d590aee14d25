import { join } from 'node:path';
import type { Runtime } from '../../src/runtime/runtime.js';
import { REPO_ROOT } from './demo-server.js';

/** The stdio MCP server whose `env_probe` tells its pid, `TAG` and environment names (test/fixtures/mcp). */
export const ENV_SERVER = join(REPO_ROOT, 'test/fixtures/mcp/env-server.mjs');

/** A scripted model's turns: one `env_probe` call, then finish. */
export const PROBE_TURNS = `turns:
  - { calls: [{ tool: env_probe, args: {} }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

/** What the probe saw. */
export interface Probe {
  pid: number;
  tag: string | null;
  keys: string[];
}

/** Follows a run to its end and returns what its `env_probe` call saw (throws when there was none). */
export async function probeOfRun(runtime: Runtime, runId: string): Promise<Probe> {
  let result: unknown;
  for await (const event of runtime.events(runId)) {
    if (event.type !== 'tool.invoked' || event.tool !== 'env_probe') continue;
    if (event.outcome !== 'SUCCESS') throw new Error(`run ${runId}: env_probe ${String(event.outcome)}`);
    result = event.result;
  }
  return probeIn(typeof result === 'string' ? result : JSON.stringify(result), runId);
}

/** The probe answer inside some text (a result, an event stream), possibly JSON-escaped once. */
export function probeIn(text: string | undefined, where: string): Probe {
  const found = /\{"pid".*?\]\}/.exec((text ?? '').replaceAll('\\"', '"'));
  if (!found) throw new Error(`${where}: no probe result in ${text}`);
  return JSON.parse(found[0]) as Probe;
}

/** Whether a process is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` until it holds or `ms` pass; its last answer. */
export async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}
