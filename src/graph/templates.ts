/**
 * Fills `{{nodes.<id>.outputs.<key>}}`, `{{input.<path>}}` and, in a map's body, `{{item.<path>}}` in
 * node instructions with earlier outputs, the run input and the item (docs/flows.md). Objects are inserted as JSON; an unknown reference is left
 * as written (validation reports it before a run starts).
 */
export function renderInstructions(
  template: string,
  scope: { input: unknown; nodes: Record<string, Record<string, unknown>>; item?: unknown },
): string {
  return template.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (whole, path: string) => {
    const value = lookupReference(path, scope);
    if (value === undefined) return whole;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/**
 * The value a template reference (`input.a`, `nodes.<id>.outputs.<key>`, `item.x` inside a map's
 * body) names in `scope`; undefined when it names nothing.
 */
export function lookupReference(
  path: string,
  scope: { input: unknown; nodes: Record<string, Record<string, unknown>>; item?: unknown },
): unknown {
  const [head, ...rest] = path.split('.');
  let current: unknown;
  if (head === 'input') current = scope.input;
  else if (head === 'item' && 'item' in scope) current = scope.item;
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
