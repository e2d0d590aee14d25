import type { Flow } from '../domain/flow.js';
import { jsonSchemaIssues } from './json-schema.js';
import type { RawProblem } from './problems.js';

/**
 * Checks of the nodes' typed outputs (docs/flows.md, `outputs.<key>.schema`): each `schema` is a valid
 * JSON Schema that compiles, so that builtin_output_set can check values against it at run time.
 */
export function outputSchemaProblems(flow: Flow): RawProblem[] {
  const problems: RawProblem[] = [];
  flow.nodes.forEach((node, i) => {
    for (const [key, contract] of Object.entries(node.outputs)) {
      if (!contract.schema) continue;
      for (const issue of jsonSchemaIssues(contract.schema))
        problems.push({
          path: ['nodes', i, 'outputs', key, 'schema', ...issue.path],
          message: issue.message,
        });
    }
  });
  return problems;
}
