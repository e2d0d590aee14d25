import { RunError } from '../domain/run-error.js';
import type { LoadedFlow } from '../flow/load.js';
import { FlowError } from '../flow/problems.js';
import { validateFlow } from '../flow/validate.js';
import { resolveModel } from '../model/resolve.js';

/**
 * What `run` checks before it opens the store, so that a flow `validate` refuses never becomes a run
 * (docs/cli.md `run`): the model resolves (a `scripted:` file is readable and valid, a provider
 * model has its key — RunError REQUEST_INVALID, exit 2), and the flow passes `validate` with its
 * servers: every tool it names exists (or is a `--tools` tool), no name is exported twice, param contracts name parameters the
 * tools have, every server answers (FlowError, exit 2, the same lines as `validate`). Lists the
 * servers' tools over connections of its own, closed afterwards.
 */
export async function preflight(
  path: string,
  loaded: LoadedFlow,
  model: string | undefined,
  knownTools: readonly string[] = [],
  builtins: readonly string[] = [],
): Promise<void> {
  if (model !== undefined) {
    try {
      resolveModel(model, undefined, loaded.flow.providers);
    } catch (error) {
      throw new RunError('REQUEST_INVALID', (error as Error).message, { cause: error });
    }
  }
  const result = await validateFlow(path, { servers: true, knownTools, builtins });
  // The model was checked above, with a clearer message (and `--model` may stand in for the flow's).
  const problems = result.problems.filter((p) => p.path !== 'model');
  if (problems.length > 0) throw new FlowError(problems);
}
