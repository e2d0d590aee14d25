/**
 * How long run code may hold the event loop before it lets other work (HTTP requests of other tenants,
 * other runs) have a turn. A run whose steps never wait on I/O (scripted or cached models, code nodes,
 * a synchronous SQLite store) would otherwise run from start to end in one stretch of microtasks.
 */
export const TURN_SLICE_MS = 15;

let since = performance.now();

/**
 * Resolves at once when the event loop had a turn within TURN_SLICE_MS, else after one turn
 * (`setImmediate`: timers and I/O that are due run first). Called after each commit of a run.
 */
export async function giveTurn(): Promise<void> {
  if (performance.now() - since < TURN_SLICE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  since = performance.now();
}
