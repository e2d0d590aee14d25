import { isAbsolute, resolve } from 'node:path';
import type { LoadedFlow } from './load.js';

/** The prefix of the deterministic model (docs/models/README.md). */
export const SCRIPTED_PREFIX = 'scripted:';

/**
 * Resolves a path written in a flow (delegates, `scripted:` files, a stdio server's `cwd`) against the
 * flow's folder; for a flow without a folder, against the current directory.
 */
export function resolveFlowPath(loaded: LoadedFlow, path: string): string {
  return isAbsolute(path) ? path : resolve(loaded.dir ?? process.cwd(), path);
}

/**
 * The flow's `model` with a relative `scripted:` file made absolute against the flow's folder (docs/flows.md),
 * so that it can be persisted and used from any directory; other models as written; undefined if none.
 */
export function flowModel(loaded: LoadedFlow): string | undefined {
  const model = loaded.flow.model;
  if (model === undefined || !model.startsWith(SCRIPTED_PREFIX)) return model;
  return SCRIPTED_PREFIX + resolveFlowPath(loaded, model.slice(SCRIPTED_PREFIX.length));
}
