import jsonata from 'jsonata';

/**
 * Parses a JSONata expression (docs/flows.md: `when`, `path`, `pending`, `verify`, `recover`, response
 * paths) and returns what is wrong with it, or undefined when it parses. Only syntax is checked here;
 * evaluation belongs to the runtime.
 */
export function jsonataProblem(expression: string): string | undefined {
  try {
    jsonata(expression);
    return undefined;
  } catch (error) {
    return `expected a JSONata expression: ${describe(error)}`;
  }
}

function describe(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { message, position, token } = error as { message?: unknown; position?: unknown; token?: unknown };
  const text = typeof message === 'string' ? message : 'syntax error';
  const at = typeof position === 'number' ? ` at character ${position}` : '';
  const near = typeof token === 'string' && token !== '' && !text.includes(token) ? ` near "${token}"` : '';
  return `${text}${near}${at}`;
}
