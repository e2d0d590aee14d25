import type { Flow } from '../domain/flow.js';
import type { RawProblem } from './problems.js';

/**
 * Checks of the run budgets (issue 20): `limits.maxCost` (of the flow or of a node) needs `prices`,
 * and a price for the flow's own model when it names a provider model (a `scripted:` model is named by
 * its absolute path at run time, so it is not checked here).
 */
export function budgetProblems(flow: Flow): RawProblem[] {
  const problems: RawProblem[] = [];
  const places: { path: (string | number)[]; maxCost: number | undefined }[] = [
    { path: ['limits', 'maxCost'], maxCost: flow.limits.maxCost },
    ...flow.nodes.map((node, i) => ({
      path: ['nodes', i, 'limits', 'maxCost'],
      maxCost: node.limits?.maxCost,
    })),
  ];
  const model = flow.model && !flow.model.startsWith('scripted:') ? flow.model : null;
  for (const place of places) {
    if (place.maxCost === undefined) continue;
    if (!flow.prices || Object.keys(flow.prices).length === 0) {
      problems.push({
        path: place.path,
        message:
          'maxCost needs the price of each model the run uses; expected `prices`, e.g. prices: { openai:gpt-4.1: { input: 2, output: 8 } }',
      });
    } else if (model && !flow.prices[model]) {
      problems.push({
        path: place.path,
        message: `maxCost needs the price of the flow's model ${model}; expected it under \`prices\``,
      });
    }
  }
  return problems;
}
