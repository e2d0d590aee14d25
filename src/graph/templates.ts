/**
 * Fills `{{nodes.<id>.outputs.<key>}}` and `{{input.<path>}}` in node instructions with earlier
 * outputs and the run input (docs/flows.md). Objects are inserted as JSON; an unknown reference is left
 * as written (validation reports it before a run starts).
 */
export function renderInstructions(
  template: string,
  scope: { input: unknown; nodes: Record<string, Record<string, unknown>> },
): string {
  return template.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (whole, path: string) => {
    const value = lookup(path.split('.'), scope);
    if (value === undefined) return whole;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function lookup(
  parts: string[],
  scope: { input: unknown; nodes: Record<string, Record<string, unknown>> },
): unknown {
  const [head, ...rest] = parts;
  let current: unknown;
  if (head === 'input') current = scope.input;
  else if (head === 'nodes') {
    const [nodeId, outputsWord, ...tail] = rest;
    if (!nodeId || outputsWord !== 'outputs') return undefined;
    current = { outputs: scope.nodes[nodeId] };
    rest.splice(0, rest.length, 'outputs', ...tail);
  } else return undefined;
  for (const part of rest) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}
